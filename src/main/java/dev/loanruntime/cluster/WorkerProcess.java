package dev.loanruntime.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.loanruntime.protocol.Standby;
import dev.loanruntime.protocol.StatusLines;

/**
 * One worker JVM as the primary sees it: its id and pid, whether it is ready (it printed its start-up line, so
 * its listener is bound and accepting), and its exit. Its output is copied to the primary's, each line prefixed
 * with {@code [worker <id>]}. Two daemon threads per worker read the output; every other method returns at once
 * except {@link #promote(int)}, which writes a line to a pipe.
 *
 * <p>A spare has id 0 and the prefix {@code [spare]} until it is promoted; {@link #standby()} tells when it is warm.
 */
final class WorkerProcess {
    private volatile int id;
    private final Process process;
    private final long startedNanos;
    private final CompletableFuture<Long> ready = new CompletableFuture<>();
    private final CompletableFuture<Long> standby = new CompletableFuture<>();
    /** True at the worker's stopped line; false when its output ended without one. */
    private final CompletableFuture<Boolean> stopped = new CompletableFuture<>();
    private final CompletableFuture<Integer> exited;
    private final CompletableFuture<Void> outputCopied = new CompletableFuture<>();
    private int pumpsRunning = 2; // guarded by this
    private volatile String lastError = "";

    private WorkerProcess(int id, Process process) {
        this.id = id;
        this.process = process;
        this.startedNanos = System.nanoTime();
        this.exited = process.onExit().thenApply(Process::exitValue);
    }

    /** Starts worker {@code id} (0: a spare); its output goes to {@code out} and {@code err}, prefixed. */
    static WorkerProcess start(int id, ProcessBuilder builder, PrintStream out, PrintStream err) throws IOException {
        WorkerProcess worker = new WorkerProcess(id, builder.start());
        // The pipe to the worker's stdin stays open for the worker's life: its end of file is how the worker learns
        // that the primary is gone (PrimaryWatch). The only line ever written to it is a spare's promotion.
        worker.copy(worker.process.getInputStream(), out, true);
        worker.copy(worker.process.getErrorStream(), err, false);
        return worker;
    }

    private void copy(InputStream from, PrintStream to, boolean watchForReady) {
        Thread.ofPlatform().daemon().name("worker-" + id + "-" + process.pid() + (watchForReady ? "-out" : "-err"))
                .start(() -> {
                    try (BufferedReader reader = new BufferedReader(
                            new InputStreamReader(from, StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = reader.readLine()) != null) {
                            to.println(StatusLines.copiedFrom(id) + line);
                            if (watchForReady && line.startsWith(StatusLines.SERVING)) {
                                ready.complete(System.nanoTime());
                            } else if (watchForReady && line.startsWith(StatusLines.STANDBY)) {
                                standby.complete(System.nanoTime());
                            } else if (watchForReady && line.startsWith(StatusLines.STOPPED)) {
                                stopped.complete(true);
                            } else if (!watchForReady && !line.isBlank()) {
                                lastError = line;
                            }
                        }
                    } catch (IOException e) {
                        // the worker is gone; its exit code tells the rest
                    } finally {
                        pumpEnded();
                        if (watchForReady) {
                            stopped.complete(false);
                            standby.completeExceptionally(new IllegalStateException("spare pid=" + process.pid()
                                    + " ended before it stood by"));
                            ready.completeExceptionally(new IllegalStateException(
                                    "worker " + id + " pid=" + process.pid() + " ended before it was ready"));
                        }
                    }
                });
    }

    private synchronized void pumpEnded() {
        if (--pumpsRunning == 0) {
            outputCopied.complete(null);
        }
    }

    int id() {
        return id;
    }

    long pid() {
        return process.pid();
    }

    /** Completes when the worker listens; fails if its output ends first. */
    CompletableFuture<Long> ready() {
        return ready;
    }

    /** Completes when a spare is warm and waits for its promotion; fails if its output ends first. */
    CompletableFuture<Long> standby() {
        return standby;
    }

    /**
     * Makes this spare worker {@code workerId}: it binds the shared port and then prints its start-up line
     * ({@link #ready()}). A spare that is still warming up reads the line when it is done. Blocks while the line is
     * written to the pipe (a few bytes: at once); a spare that is already gone is left to its exit handler.
     */
    void promote(int workerId) {
        this.id = workerId;
        try {
            process.getOutputStream().write(Standby.promotion(workerId));
            process.getOutputStream().flush();
        } catch (IOException e) {
            // it died meanwhile: its exit is reported like any worker's
        }
    }

    /**
     * Completes with true when the worker says it stopped: its listener is closed and every request it accepted is
     * answered, while its JVM may take a moment more to exit (HotSpot waits up to 300 ms for threads in native code,
     * such as the JDK's I/O poller). Completes with false when its output ends without that line.
     */
    CompletableFuture<Boolean> stopped() {
        return stopped;
    }

    /** Completes when the worker has exited and its last output line has been copied. */
    CompletableFuture<Void> finished() {
        return CompletableFuture.allOf(exited, outputCopied);
    }

    /** Completes with the exit code (128 + signal for a killed worker). */
    CompletableFuture<Integer> exited() {
        return exited;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** How long the worker has been ready, now; empty if it never was. */
    Optional<Duration> upFor() {
        if (!ready.isDone() || ready.isCompletedExceptionally()) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(System.nanoTime() - ready.join()));
    }

    Duration age() {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    /** The last non-blank line the worker wrote to stderr, to explain a failure. */
    String lastError() {
        return lastError;
    }

    /**
     * SIGTERM: the worker stops accepting, finishes its in-flight requests and exits. Through the handle, not
     * {@link Process#destroy()}, which also closes the pipes: the worker would read that as its primary's death and
     * the primary would lose the worker's last lines.
     */
    void terminate() {
        process.toHandle().destroy();
    }

    /** SIGKILL. */
    void kill() {
        process.toHandle().destroyForcibly();
    }
}
