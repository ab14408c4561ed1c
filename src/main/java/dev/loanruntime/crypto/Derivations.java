package dev.loanruntime.crypto;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs derivations on the calling thread under a memory bound: at most {@code maxRunning} derivations hold their
 * working memory at once, at most {@code maxWaiting} callers wait for a turn, and everyone else is refused with
 * {@link BusyException} at once. Without the bound, 500 concurrent heavy requests on platform threads would ask
 * for 500 x 64 MiB and end in an {@code OutOfMemoryError}.
 *
 * <p>Thread-safe. {@link #derive} blocks the caller while it waits and while it derives.
 */
public final class Derivations {
    private final PasswordHasher hasher;
    private final int maxRunning;
    private final int maxWaiting;
    private final Semaphore permits;
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();

    public Derivations(PasswordHasher hasher, int maxRunning, int maxWaiting) {
        if (maxRunning < 1 || maxWaiting < 0) {
            throw new IllegalArgumentException("maxRunning must be >= 1 and maxWaiting >= 0");
        }
        this.hasher = hasher;
        this.maxRunning = maxRunning;
        this.maxWaiting = maxWaiting;
        this.permits = new Semaphore(maxRunning, true);
    }

    /**
     * The default bound: half of the maximum heap divided by one derivation's memory, at least 1. The other half
     * stays for the server and for the garbage collector's headroom with 64 MiB (humongous) arrays. Conscrypt's
     * derivations hold native memory instead of heap; the same bound then keeps the process within about 1.5 x -Xmx
     * (heap plus at most half a heap of derivations), where without it 500 concurrent derivations would map 32 GiB.
     */
    public static int defaultMaxRunning(long maxHeapBytes, ScryptCost cost) {
        return (int) Math.max(1, Math.min(1024, maxHeapBytes / 2 / cost.memoryBytes()));
    }

    /**
     * Derives on the calling thread once a memory permit is free.
     *
     * @throws BusyException when {@code maxWaiting} callers already wait
     * @throws DerivationException when the hasher fails
     */
    public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
        acquire();
        running.incrementAndGet();
        try {
            return hasher.derive(password, salt, cost);
        } catch (RuntimeException | OutOfMemoryError e) {
            throw new DerivationException("scrypt derivation failed", e);
        } finally {
            running.decrementAndGet();
            permits.release();
        }
    }

    private void acquire() {
        if (permits.tryAcquire()) {
            return;
        }
        if (waiting.incrementAndGet() > maxWaiting) {
            waiting.decrementAndGet();
            throw new BusyException("derivation-memory");
        }
        try {
            permits.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DerivationException("interrupted while waiting for a derivation permit", e);
        } finally {
            waiting.decrementAndGet();
        }
    }

    public int running() {
        return running.get();
    }

    public int waiting() {
        return waiting.get();
    }

    public int maxRunning() {
        return maxRunning;
    }

    public String hasherName() {
        return hasher.name();
    }
}
