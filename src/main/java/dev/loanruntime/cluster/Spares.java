package dev.loanruntime.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;

import dev.loanruntime.protocol.StatusLines;

/**
 * The primary's warm spares: worker JVMs that have started, loaded their classes, opened the store and served a
 * private warm-up, but do not listen on the shared port. A worker that dies is replaced by promoting one
 * ({@link #take()}), which answers within milliseconds instead of after a JVM's start; a new spare is then started
 * in the background. All methods run on the primary's control thread and never block.
 *
 * <p>Spares start only once the cluster is ready (they would slow the workers' own start on a small machine), are
 * retired during a rolling restart (they run the old code and settings) and come back when it ends. A spare that
 * dies on its own is restarted with the same back-off as a worker; after too many fast failures in a row the
 * cluster goes on without spares.
 */
final class Spares {
    private final Control primary;
    private final int wanted;
    private final RestartPolicy policy;
    private final List<WorkerProcess> spares = new ArrayList<>();
    private boolean enabled;
    private boolean gaveUp;
    private ScheduledFuture<?> pendingStart;

    Spares(Control primary, int wanted, RestartPolicy.Settings restart) {
        this.primary = primary;
        this.wanted = wanted;
        this.policy = new RestartPolicy(restart);
    }

    /** Keeps {@code wanted} spares from now on. */
    void enable() {
        enabled = true;
        fill();
    }

    /** Stops every spare and starts none until {@link #enable()}. */
    void retireAll() {
        enabled = false;
        cancelPendingStart();
        spares.forEach(WorkerProcess::terminate);
        spares.clear();
    }

    /** Removes a spare for promotion, one that already stands by if there is one; empty when there is none. */
    Optional<WorkerProcess> take() {
        Optional<WorkerProcess> spare = spares.stream().filter(s -> s.standby().isDone()).findFirst()
                .or(() -> spares.stream().findFirst());
        spare.ifPresent(spares::remove);
        return spare;
    }

    /** Starts spares until there are {@code wanted}. */
    void fill() {
        pendingStart = null;
        while (enabled && !gaveUp && !primary.stopping() && spares.size() < wanted) {
            WorkerProcess spare = primary.startSpare();
            if (spare == null) {
                return;
            }
            spares.add(spare);
            primary.then(spare.standby(), (at, failure) -> {
                if (failure == null && spares.contains(spare)) {
                    primary.say(StatusLines.standingBy(spare.pid(), spare.age().toMillis()));
                }
            });
            primary.then(spare.exited(), (code, failure) -> onExit(spare, code));
        }
    }

    private void onExit(WorkerProcess spare, int code) {
        if (!spares.remove(spare) || primary.stopping()) {
            return; // promoted (now a worker, watched as one), retired, or the cluster stops
        }
        Optional<Duration> stoodBy = spare.standby().isDone() && !spare.standby().isCompletedExceptionally()
                ? Optional.of(spare.age()) : Optional.empty();
        switch (policy.onExit(stoodBy)) {
            case RestartPolicy.Decision.GiveUp giveUp -> {
                gaveUp = true;
                primary.warn("loan-runtime cluster: spares failed " + giveUp.fastFailures()
                        + " times in a row; going on without spares"
                        + (spare.lastError().isEmpty() ? "" : ". The last error: " + spare.lastError()));
            }
            case RestartPolicy.Decision.Restart restart -> {
                primary.say(StatusLines.spareDied(spare.pid(), code, restart.delay().toMillis()));
                cancelPendingStart();
                pendingStart = primary.schedule(this::fill, restart.delay());
            }
        }
    }

    private void cancelPendingStart() {
        if (pendingStart != null) {
            pendingStart.cancel(false);
            pendingStart = null;
        }
    }
}
