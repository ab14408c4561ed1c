package dev.loanruntime.crypto;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A hand-written fake: derives nothing until released, and records how many derivations ran at once. */
public final class BlockingHasher implements PasswordHasher {
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger maxRunning = new AtomicInteger();
    private final AtomicInteger started = new AtomicInteger();

    @Override
    public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
        started.incrementAndGet();
        maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        try {
            if (!release.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
            return new byte[cost.keyLength()];
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            running.decrementAndGet();
        }
    }

    @Override
    public String name() {
        return "blocking-fake";
    }

    public void release() {
        release.countDown();
    }

    public int running() {
        return running.get();
    }

    public int started() {
        return started.get();
    }

    public int maxRunning() {
        return maxRunning.get();
    }
}
