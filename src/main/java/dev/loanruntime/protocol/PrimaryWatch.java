package dev.loanruntime.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Runs in a cluster's worker or spare: ends the process when its primary is gone, however it went (even SIGKILL,
 * which the primary cannot react to), and hands a spare its promotion. The primary keeps the write end of the
 * process's stdin open and writes nothing to it but a spare's promotion; the kernel closes it when the primary's
 * process ends, so a blocking read here returns end-of-file at once. No polling, no timer.
 *
 * <p>The watch starts on the first line of {@code main} ({@link #startIfWorker()}), before the JVM spends seconds on
 * warm-up or on starting its server: a worker or spare whose primary dies meanwhile halts at once, since no client
 * can have a request in it yet. Once it serves, {@link #onGone(Runnable)} makes the end a graceful stop instead,
 * halted if that takes more than {@link #ORPHAN_GRACE}. One daemon platform thread reads the pipe and runs those
 * actions; the other methods are safe from any thread.
 */
public final class PrimaryWatch {
    /** Set by the primary in each worker's environment: the worker id, 0 for a spare. */
    public static final String WORKER_ID_ENV = "LOAN_WORKER_ID";
    /** After the primary is gone, a serving orphan gets this long to stop gracefully before it halts. */
    static final Duration ORPHAN_GRACE = Duration.ofMillis(1000);
    private static final System.Logger LOGGER = System.getLogger(PrimaryWatch.class.getName());
    private static volatile PrimaryWatch thisProcess;

    private final CompletableFuture<OptionalInt> promotion = new CompletableFuture<>();
    private final Duration grace;
    private final Runnable halt;
    private Runnable stop; // guarded by this; null until the process serves
    private boolean gone;  // guarded by this

    private PrimaryWatch(Duration grace, Runnable halt) {
        this.grace = grace;
        this.halt = halt;
    }

    /**
     * Call first in {@code main}: when the primary started this process ({@link #WORKER_ID_ENV} is set), starts
     * reading its pipe now. Returns at once.
     */
    public static void startIfWorker() {
        String id = System.getenv(WORKER_ID_ENV);
        if (id != null && thisProcess == null) {
            thisProcess = start(System.in, "0".equals(id.trim()), ORPHAN_GRACE, () -> Runtime.getRuntime().halt(1));
        }
    }

    /** This process's watch: the one {@code main} started, or one started now. */
    public static synchronized PrimaryWatch ofThisProcess(boolean spare) {
        if (thisProcess == null) {
            thisProcess = start(System.in, spare, ORPHAN_GRACE, () -> Runtime.getRuntime().halt(1));
        }
        return thisProcess;
    }

    /**
     * Starts a daemon thread reading {@code pipe}: first a promotion line when {@code spare}, then until end of file.
     * At end of file it runs the stop given to {@link #onGone(Runnable)} and {@code halt} {@code grace} later, or
     * {@code halt} at once when there is none yet.
     */
    static PrimaryWatch start(InputStream pipe, boolean spare, Duration grace, Runnable halt) {
        PrimaryWatch watch = new PrimaryWatch(grace, halt);
        Thread.ofPlatform().daemon().name("primary-watch").start(() -> {
            if (spare) {
                try {
                    watch.promotion.complete(Standby.awaitPromotion(pipe));
                } catch (IllegalStateException e) {
                    watch.promotion.completeExceptionally(e);
                }
            }
            drain(pipe);
            watch.primaryGone();
        });
        return watch;
    }

    /**
     * Blocks until the primary promotes this spare (its new worker id) or is gone (empty).
     *
     * @throws IllegalStateException on a line that is not a promotion (the primary and worker disagree)
     */
    public OptionalInt awaitPromotion() throws InterruptedException {
        try {
            return promotion.get();
        } catch (ExecutionException e) {
            throw (IllegalStateException) e.getCause();
        }
    }

    /** From now on the primary's end runs {@code stop} (a graceful stop); at once if it is already gone. */
    public void onGone(Runnable stop) {
        boolean already;
        synchronized (this) {
            this.stop = stop;
            already = gone;
        }
        if (already) {
            stopThenHalt(stop);
        }
    }

    private void primaryGone() {
        promotion.complete(OptionalInt.empty());
        Runnable graceful;
        synchronized (this) {
            gone = true;
            graceful = stop;
        }
        if (graceful == null) {
            // Still starting (or a spare): no client can have a request here, so there is nothing to finish.
            LOGGER.log(System.Logger.Level.WARNING, "the primary is gone before this worker served; it exits");
            halt.run();
            return;
        }
        LOGGER.log(System.Logger.Level.WARNING, "the primary is gone; this worker stops");
        stopThenHalt(graceful);
    }

    private void stopThenHalt(Runnable graceful) {
        // In-flight requests had their chance; nobody will replace or stop this process any more.
        Thread.ofPlatform().daemon().name("orphan-halt").start(() -> {
            try {
                Thread.sleep(grace);
            } catch (InterruptedException e) {
                return;
            }
            halt.run();
        });
        graceful.run();
    }

    private static void drain(InputStream in) {
        byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // the primary writes nothing after a promotion; anything read is ignored
            }
        } catch (IOException e) {
            // a broken pipe means the same as end of file: the primary is gone
        }
    }
}
