package dev.loanruntime.monitor;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Ends a window of {@link LatencyWindows} once a second, on a platform thread of its own. The windows stay current
 * while every carrier is held: a virtual thread could not run to roll them then, and that is when the carrier delay
 * matters most. One per server; {@link #close()} stops it.
 */
public final class WindowClock implements AutoCloseable {
    private static final System.Logger LOGGER = System.getLogger(WindowClock.class.getName());
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("latency-windows").factory());

    /** Runs {@code roll} once a window from now on, on the clock's thread; a roll that throws is logged and skipped. */
    public WindowClock(Runnable roll) {
        timer.scheduleAtFixedRate(() -> {
            try {
                roll.run();
            } catch (RuntimeException e) {
                LOGGER.log(System.Logger.Level.WARNING, "a latency window did not roll", e);
            }
        }, LatencyWindows.WINDOW_NANOS, LatencyWindows.WINDOW_NANOS, TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            if (!timer.awaitTermination(2, TimeUnit.SECONDS)) {
                LOGGER.log(System.Logger.Level.WARNING, "the latency-window clock did not stop within 2 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
