package dev.loanruntime.serve;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * How a serving process is asked to end, and the drain before it. A drain ({@link #drainFirst()}, SIGTERM) lets a
 * load balancer see the server go: it turns not-ready and keeps accepting and serving for the drain delay, and only
 * then stops accepting. A stop {@link #now()} (SIGINT, the primary gone) skips the delay, also one already under way.
 * The askers call from their own threads (signal handlers, the primary watch); {@link #await} blocks the main thread.
 */
final class StopRequest {
    private final CountDownLatch asked = new CountDownLatch(1);
    private final CountDownLatch now = new CountDownLatch(1);

    /** Stop after the drain delay. */
    void drainFirst() {
        asked.countDown();
    }

    /** Stop without a drain delay, or end the one under way. */
    void now() {
        now.countDown();
        asked.countDown();
    }

    /**
     * Blocks until a stop is asked for. For a drain with a delay above zero, runs {@code startDrain} first (not-ready
     * before anything else changes) and then waits out the delay, or until {@link #now()}. The caller then closes
     * the listener.
     */
    void await(Duration delay, Runnable startDrain) throws InterruptedException {
        asked.await();
        if (now.getCount() == 0 || delay.isZero()) {
            return;
        }
        startDrain.run();
        now.await(delay.toNanos(), TimeUnit.NANOSECONDS);
    }
}
