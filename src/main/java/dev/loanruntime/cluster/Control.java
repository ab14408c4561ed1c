package dev.loanruntime.cluster;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.function.BiConsumer;

/**
 * What the primary's helpers ({@link Spares}, {@link RollingRestart}) may ask of it: start processes, run tasks on
 * its control thread, and print. Every method is called on the control thread and returns at once.
 */
interface Control {
    /** Whether the cluster stops: nothing new may start. */
    boolean stopping();

    /** Starts a spare (not yet watched as a worker); null, after stopping the cluster, if it cannot. */
    WorkerProcess startSpare();

    /** Starts worker {@code id} and watches its readiness and exit; null, after stopping the cluster, if it cannot. */
    WorkerProcess startWorker(int id);

    /**
     * Makes a standing-by spare the worker of {@code slot} (it binds the shared port; {@link WorkerProcess#ready()}
     * tells when it listens) and watches it as a worker from now on.
     */
    void promote(Primary.Slot slot, WorkerProcess spare);

    /** Runs {@code task} on the control thread when {@code future} completes, however it completes. */
    <T> void then(CompletableFuture<T> future, BiConsumer<T, Throwable> task);

    /** Runs {@code task} on the control thread after {@code delay}. */
    ScheduledFuture<?> schedule(Runnable task, Duration delay);

    /** A status line on the primary's standard output. */
    void say(String line);

    /** A line on the primary's standard error. */
    void warn(String line);
}
