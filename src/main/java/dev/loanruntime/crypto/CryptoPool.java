package dev.loanruntime.crypto;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * A bounded pool of platform threads for CPU-heavy derivations: the JVM's counterpart of libuv's thread pool.
 * {@code threads} derivations run at once; up to {@code queue} more wait; beyond that, {@link BusyException}
 * at once. The caller's thread waits for the result; a virtual caller parks and frees its carrier meanwhile.
 */
public final class CryptoPool implements AutoCloseable {
    /**
     * The points of one derivation's passage through the pool, told to whoever times the request it is for (the
     * request stages): submitted and resumed on the caller's thread, started and ended on the pool thread.
     */
    public interface Points {
        /** Tells nothing. */
        Points NONE = new Points() {
        };

        default void cryptoSubmitted() {
        }

        default void cryptoStarted() {
        }

        default void cryptoEnded() {
        }

        default void resumed() {
        }
    }

    private final Derivations derivations;
    private final Supplier<Points> points;
    private final LongConsumer queueWaits;
    private final ThreadPoolExecutor executor;
    private final Semaphore slots;
    private final int threads;
    private final int queue;

    public CryptoPool(Derivations derivations, int threads, int queue) {
        this(derivations, threads, queue, () -> Points.NONE, wait -> { });
    }

    /**
     * A pool that tells each derivation's points to {@code points}, asked on the caller's thread, and each one's wait
     * in the queue (nanoseconds from its submission to its start) to {@code queueWaits}, on the pool thread that
     * starts it.
     */
    public CryptoPool(Derivations derivations, int threads, int queue, Supplier<Points> points,
                      LongConsumer queueWaits) {
        this.derivations = derivations;
        this.points = points;
        this.queueWaits = queueWaits;
        this.threads = threads;
        this.queue = queue;
        // Admission is counted here, not by the executor's queue: a bounded queue (or a hand-off queue for 0) would
        // also refuse a task in the instant between a worker finishing its task and taking the next one.
        this.slots = new Semaphore(threads + queue);
        this.executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(),
                Thread.ofPlatform().daemon().name("crypto-", 1).factory(),
                new ThreadPoolExecutor.AbortPolicy());
        this.executor.prestartAllCoreThreads();
    }

    /**
     * Derives on a pool thread and waits for the key. May block the caller for the whole derivation.
     *
     * @throws BusyException when the queue is full
     * @throws DerivationException when the derivation fails
     */
    public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
        if (!slots.tryAcquire()) {
            throw new BusyException("crypto-queue");
        }
        // Whoever claims the task owns its slot: the pool thread that starts it (and releases the slot when the
        // derivation ends), or its caller giving up while it is still queued. A task cancelled in the queue never
        // runs, so without the caller's claim its slot would be gone for good.
        AtomicBoolean claimed = new AtomicBoolean();
        Points stamps = points.get();
        long submitted = System.nanoTime();
        FutureTask<byte[]> task = new FutureTask<>(() -> {
            if (!claimed.compareAndSet(false, true)) {
                return null;            // its caller gave up first and gave the slot back
            }
            queueWaits.accept(System.nanoTime() - submitted);
            stamps.cryptoStarted();
            try {
                return derivations.derive(password, salt, cost);
            } finally {
                stamps.cryptoEnded();
                slots.release();    // before the caller sees the result, so it may submit again at once
            }
        });
        stamps.cryptoSubmitted();
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            slots.release();
            throw new DerivationException("the crypto pool is shut down", e);
        }
        try {
            byte[] key = task.get();
            stamps.resumed();   // a virtual caller had to get a carrier again first: the stage 'resume'
            return key;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re
                    && (re instanceof BusyException || re instanceof DerivationException)) {
                throw re;
            }
            throw new DerivationException("scrypt derivation failed", e.getCause());
        } catch (InterruptedException e) {
            task.cancel(true);
            if (claimed.compareAndSet(false, true)) {
                executor.remove(task);  // still queued: it will never run; neither count it as waiting
                slots.release();
            }
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
