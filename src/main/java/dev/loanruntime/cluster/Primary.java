package dev.loanruntime.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;

import dev.loanruntime.protocol.StatusLines;

/**
 * The cluster's primary: starts one worker JVM per slot, replaces a worker that dies (at once by promoting a warm
 * spare when there is one, else by starting a JVM; with back-off for repeated deaths, giving up on a crash loop),
 * replaces them one by one on request (rolling restart), and stops them all.
 *
 * <p>Every state change runs on one control thread, so the state needs no locks: process exits, readiness,
 * signals and timers all post tasks to it. {@link #run()} blocks the caller's thread until the cluster has stopped;
 * {@link #stop(int)}, the last task, blocks the control thread while the workers exit.
 */
final class Primary implements Control {
    static final Duration NEXT_SPARE_DELAY = Duration.ofSeconds(1);
    private final Settings settings;
    private final IntFunction<ProcessBuilder> workerBuilder;
    private final PrintStream out;
    private final PrintStream err;
    private final ScheduledExecutorService control = Executors.newSingleThreadScheduledExecutor(
            task -> Thread.ofPlatform().daemon().name("cluster-control").unstarted(task));
    private final List<Slot> slots = new ArrayList<>();
    private final Set<WorkerProcess> live = new HashSet<>();
    private final CompletableFuture<Integer> result = new CompletableFuture<>();
    private final RollingRestart rolling;
    private final Spares spares;
    private boolean stopping;
    private boolean announcedReady;

    /**
     * @param workers      worker processes to keep running
     * @param spares       warm spare processes to keep for fast replacement (0: none)
     * @param killTimeout  how long a stopping worker may take before SIGKILL
     * @param startTimeout how long a new worker may take to become ready before it counts as failed
     * @param restart      back-off and crash-loop limits
     */
    record Settings(int workers, int spares, Duration killTimeout, Duration startTimeout,
                    RestartPolicy.Settings restart) {
    }

    /** One worker id and the process that currently holds it. Control thread only. */
    static final class Slot {
        final int id;
        final RestartPolicy policy;
        WorkerProcess current;
        ScheduledFuture<?> pendingStart;

        Slot(int id, RestartPolicy policy) {
            this.id = id;
            this.policy = policy;
        }
    }

    Primary(Settings settings, IntFunction<ProcessBuilder> workerBuilder, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.workerBuilder = workerBuilder;
        this.out = out;
        this.err = err;
        for (int id = 1; id <= settings.workers(); id++) {
            slots.add(new Slot(id, new RestartPolicy(settings.restart())));
        }
        this.spares = new Spares(this, settings.spares(), settings.restart());
        this.rolling = new RollingRestart(this, slots, spares, settings.killTimeout(),
                settings.startTimeout());
    }

    /** Starts the workers and blocks until the cluster has stopped; returns the primary's exit status. */
    int run() {
        out.println(StatusLines.primary(ProcessHandle.current().pid(), settings.workers()));
        control.execute(() -> slots.forEach(this::launch));
        int code = result.join();
        control.shutdownNow();
        return code;
    }

    /** Posts {@code task} to the control thread; from any thread, e.g. a signal handler. */
    void post(Runnable task) {
        try {
            control.execute(task);
        } catch (RejectedExecutionException e) {
            // already stopped
        }
    }

    /** SIGTERM/SIGINT: stop every worker and exit 0. */
    void requestStop() {
        post(() -> stop(0));
    }

    /** SIGHUP: replace the workers one at a time. */
    void requestRollingRestart() {
        post(rolling::start);
    }

    // --- control thread from here on ---

    @Override
    public boolean stopping() {
        return stopping;
    }

    @Override
    public void say(String line) {
        out.println(line);
    }

    @Override
    public void warn(String line) {
        err.println(line);
    }

    @Override
    public WorkerProcess startSpare() {
        return startProcess(0);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, Duration delay) {
        return control.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void launch(Slot slot) {
        slot.pendingStart = null;
        if (stopping) {
            return;
        }
        Optional<WorkerProcess> spare = spares.take();
        if (spare.isPresent()) {
            promote(slot, spare.get());
            return;
        }
        WorkerProcess worker = startWorker(slot.id);
        if (worker != null) {
            slot.current = worker;
        }
    }

    /** The spare becomes the slot's worker; once it listens (or fails to), a new spare starts in the background. */
    @Override
    public void promote(Slot slot, WorkerProcess spare) {
        long promotedAt = System.nanoTime();
        spare.promote(slot.id);
        slot.current = spare;
        out.println(StatusLines.nowSpare(slot.id, spare.pid()));
        watch(spare);
        then(spare.ready(), (readyAt, failure) -> {
            if (failure == null) {
                out.println(StatusLines.listening(slot.id, spare.pid(),
                        TimeUnit.NANOSECONDS.toMillis(readyAt - promotedAt)));
            }
            // Not at once: a JVM's start takes both cores of a small machine for seconds, just when the promoted
            // worker serves its first requests.
            schedule(spares::fill, NEXT_SPARE_DELAY);
        });
    }

    @Override
    public WorkerProcess startWorker(int id) {
        WorkerProcess worker = startProcess(id);
        if (worker != null) {
            watch(worker);
        }
        return worker;
    }

    /** Starts worker {@code id}, or a spare for id 0; null (after stopping the cluster) if it cannot. */
    private WorkerProcess startProcess(int id) {
        WorkerProcess worker;
        try {
            worker = WorkerProcess.start(id, workerBuilder.apply(id), out, err);
        } catch (IOException e) {
            err.println("loan-runtime cluster: cannot start " + (id == 0 ? "a spare" : "worker " + id) + ": "
                    + e.getMessage());
            stop(1);
            return null;
        }
        live.add(worker);
        out.println(StatusLines.started(id, worker.pid()));
        worker.exited().thenRunAsync(() -> live.remove(worker), control);
        return worker;
    }

    /** Watches a worker that holds, or is about to hold, a slot: its readiness within the start timeout, its exit. */
    private void watch(WorkerProcess worker) {
        worker.ready().copy()
                .orTimeout(settings.startTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .whenCompleteAsync((at, failure) -> onReadyOrNot(worker, failure), control);
        worker.exited().thenAcceptAsync(code -> onExit(worker, code), control);
    }

    private void onReadyOrNot(WorkerProcess worker, Throwable failure) {
        if (failure instanceof TimeoutException && worker.isAlive()) {
            err.println("loan-runtime cluster: worker " + worker.id() + " pid=" + worker.pid() + " not ready after "
                    + settings.startTimeout().toSeconds() + " s; killing it");
            worker.kill();
            return;
        }
        boolean allReady = slots.stream().allMatch(s -> s.current != null && s.current.upFor().isPresent());
        if (failure == null && allReady && !announcedReady && !stopping) {
            announcedReady = true;
            out.println(StatusLines.CLUSTER_READY);
            spares.enable();
        }
    }

    private void onExit(WorkerProcess worker, int code) {
        Slot slot = slots.get(worker.id() - 1);
        if (stopping || slot.current != worker) {
            return; // stopping, retired by a rolling restart, or a rolling restart's new worker that failed
        }
        slot.current = null;
        switch (slot.policy.onExit(worker.upFor())) {
            case RestartPolicy.Decision.GiveUp giveUp -> {
                err.println("loan-runtime cluster: worker " + slot.id + " failed " + giveUp.fastFailures()
                        + " times in a row (exit " + code + ", each time before it was up for "
                        + settings.restart().minUptime().toSeconds() + " s); giving up"
                        + (worker.lastError().isEmpty() ? "" : ". Its last error: " + worker.lastError()));
                stop(1);
            }
            case RestartPolicy.Decision.Restart restart -> {
                out.println(StatusLines.died(slot.id, worker.pid(), code, restart.delay().toMillis()));
                if (restart.delay().isZero()) {
                    launch(slot);
                } else {
                    slot.pendingStart = schedule(() -> launch(slot), restart.delay());
                }
            }
        }
    }

    /** SIGTERM to every worker, SIGKILL to those still running after the kill timeout; then exit with {@code code}. */
    void stop(int code) {
        if (stopping) {
            return;
        }
        stopping = true;
        spares.retireAll();
        slots.stream().filter(s -> s.pendingStart != null).forEach(s -> s.pendingStart.cancel(false));
        List<WorkerProcess> workers = new ArrayList<>(live);
        int spareCount = (int) workers.stream().filter(w -> w.id() == 0).count();   // retired, maybe not gone yet
        out.println(StatusLines.stopping(workers.size() - spareCount, spareCount));
        workers.forEach(WorkerProcess::terminate);
        CompletableFuture<?> all = CompletableFuture.allOf(
                workers.stream().map(WorkerProcess::finished).toArray(CompletableFuture[]::new));
        try {
            all.get(settings.killTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            workers.stream().filter(WorkerProcess::isAlive).forEach(w -> {
                err.println("loan-runtime cluster: worker " + w.id() + " pid=" + w.pid() + " still running after "
                        + settings.killTimeout().toSeconds() + " s; killing it");
                w.kill();
            });
            awaitQuietly(all);
        } catch (InterruptedException | ExecutionException e) {
            workers.forEach(WorkerProcess::kill);
            awaitQuietly(all);
        }
        out.println(StatusLines.CLUSTER_STOPPED);
        result.complete(code);
    }

    private static void awaitQuietly(CompletableFuture<?> all) {
        try {
            all.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException ignored) {
            // SIGKILL was sent; there is nothing more the primary can do
        }
    }

    @Override
    public <T> void then(CompletableFuture<T> future, BiConsumer<T, Throwable> task) {
        future.whenCompleteAsync(task, control);
    }
}
