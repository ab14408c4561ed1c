package dev.loanruntime.crypto;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bounded pool of platform threads for CPU-heavy derivations: the JVM's counterpart of libuv's thread pool.
 * {@code threads} derivations run at once; up to {@code queue} more wait; beyond that, {@link BusyException}
 * at once. The caller's thread waits for the result; a virtual caller parks and frees its carrier meanwhile.
 */
public final class CryptoPool implements AutoCloseable {
    private final Derivations derivations;
    private final ThreadPoolExecutor executor;
    private final int threads;
    private final int queue;

    public CryptoPool(Derivations derivations, int threads, int queue) {
        this.derivations = derivations;
        this.threads = threads;
        this.queue = queue;
        AtomicInteger ids = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                // SynchronousQueue when 0: hand-off only, refuse when every thread is busy
                queue == 0 ? new SynchronousQueue<>() : new ArrayBlockingQueue<>(queue),
                task -> {
                    Thread t = new Thread(task, "crypto-" + ids.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                },
                new ThreadPoolExecutor.AbortPolicy());
    }

    /**
     * Derives on a pool thread and waits for the key. May block the caller for the whole derivation.
     *
     * @throws BusyException when the queue is full
     * @throws DerivationException when the derivation fails
     */
    public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
        Future<byte[]> result;
        try {
            result = executor.submit(() -> derivations.derive(password, salt, cost));
        } catch (RejectedExecutionException e) {
            throw new BusyException("crypto-queue");
        }
        try {
            return result.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re
                    && (re instanceof BusyException || re instanceof DerivationException)) {
                throw re;
            }
            throw new DerivationException("scrypt derivation failed", e.getCause());
        } catch (InterruptedException e) {
            result.cancel(true);
            Thread.currentThread().interrupt();
            throw new DerivationException("interrupted while waiting for the crypto pool", e);
        }
    }

    public int threads() {
        return threads;
    }

    public int queueCapacity() {
        return queue;
    }

    /** Tasks waiting for a pool thread. */
    public int queued() {
        return executor.getQueue().size();
    }

    /** Pool threads busy with a task (deriving or waiting for a memory permit). */
    public int active() {
        return executor.getActiveCount();
    }

    public Derivations derivations() {
        return derivations;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
