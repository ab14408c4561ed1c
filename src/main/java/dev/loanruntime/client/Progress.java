package dev.loanruntime.client;

import java.io.Console;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;

import dev.loanruntime.cli.Durations;

/**
 * A one-line progress display for a run that measures for a while: once a second it rewrites one line on a
 * terminal ("4s of 10s: 41,200 answered, 0 failed, 10,300/s"), and it prints nothing when the output is a file or a
 * pipe, so scripts and records see only the report. Runs on one daemon platform thread (a virtual one would wait for
 * a carrier exactly when the client is busiest); {@link #close()} clears the line.
 */
final class Progress implements AutoCloseable {
    private final PrintStream out;
    private final Thread thread;
    private volatile boolean done;

    private Progress() {
        this.out = null;
        this.thread = null;
    }

    private Progress(PrintStream out, String total, long totalRequests, LongSupplier answered, LongSupplier failed) {
        this.out = out;
        long start = System.nanoTime();
        this.thread = Thread.ofPlatform().daemon().name("load-progress").start(() -> {
            long lastCount = 0;
            long lastAt = start;
            while (!done) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
                long now = System.nanoTime();
                long ok = answered.getAsLong();
                long bad = failed.getAsLong();
                double rate = (ok + bad - lastCount) / ((now - lastAt) / 1e9);
                lastCount = ok + bad;
                lastAt = now;
                String of = totalRequests > 0
                        ? String.format(Locale.ROOT, "%,d of %,d", ok + bad, totalRequests)
                        : (now - start) / 1_000_000_000L + "s of " + total;
                if (!done) {
                    out.print(String.format(Locale.ROOT, "\r\033[K  %s: %,d answered, %,d failed, %,.0f/s",
                            of, ok, bad, rate));
                    out.flush();
                }
            }
        });
    }

    /**
     * Shows progress on {@code out} when this process talks to a terminal; otherwise returns a display that shows
     * nothing. {@code duration} or {@code requests} bounds the run (the other is null or 0).
     */
    static Progress onTerminal(PrintStream out, Duration duration, long requests, LongSupplier answered,
                               LongSupplier failed) {
        if (!isTerminal()) {
            return new Progress();
        }
        return new Progress(out, duration == null ? "?" : Durations.format(duration), duration == null ? requests : 0,
                answered, failed);
    }

    /**
     * Whether stdin and stdout are a terminal. JDK 21 returns no console unless they are; JDK 22+ always returns one
     * and tells with {@code Console.isTerminal()}, called by reflection because the code is compiled for 21.
     */
    static boolean isTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (NoSuchMethodException e) {
            return true;
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    @Override
    public void close() {
        if (thread == null) {
            return;
        }
        done = true;
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        out.print("\r\033[K");
        out.flush();
    }
}
