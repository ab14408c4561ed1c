package dev.loanruntime.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.loanruntime.protocol.StatusLines;

/**
 * Replaces the workers one at a time. Every replacement starts at once, as a standby: a JVM that loads its classes,
 * opens the store and warms up on a private port without listening on the shared one; their starts overlap each
 * other and the old workers keep serving meanwhile. Then, slot by slot, the standby is promoted (it binds the shared
 * port, in milliseconds), and once it listens the old worker drains, stops, and is waited for before the next slot.
 * A step is thus the promotion, the drain and the stop; at every moment at least N workers listen, so a new
 * connection always finds a listener. All methods run on the primary's control thread and never block.
 */
final class RollingRestart {
    private final Control primary;
    private final List<Primary.Slot> slots;
    private final Spares spares;
    private final Duration killTimeout;
    private final Duration startTimeout;
    private final List<WorkerProcess> standbys = new ArrayList<>();
    private final Set<WorkerProcess> announced = new HashSet<>();
    private boolean running;

    /**
     * Replaces the workers of {@code slots}, retiring {@code spares} meanwhile; a replacement that does not stand by
     * within {@code startTimeout} stops the restart; SIGKILL for an old worker after {@code killTimeout}.
     */
    RollingRestart(Control primary, List<Primary.Slot> slots, Spares spares, Duration killTimeout,
                   Duration startTimeout) {
        this.primary = primary;
        this.slots = slots;
        this.spares = spares;
        this.killTimeout = killTimeout;
        this.startTimeout = startTimeout;
    }

    /**
     * A warning when this kernel resets, rather than hands over, the connections still queued in the listener of a
     * worker that stops: Linux's net.ipv4.tcp_migrate_req (5.14+) set to 0, the default. Empty when it is 1 or absent.
     */
    static Optional<String> queueWarning(Path sysctl) {
        try {
            if (!"0".equals(Files.readString(sysctl).trim())) {
                return Optional.empty();
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.of("loan-runtime cluster: note: net.ipv4.tcp_migrate_req is 0, so a worker that stops (rolling "
                + "restart, SIGTERM) resets connections still queued in its listener; "
                + "'sysctl -w net.ipv4.tcp_migrate_req=1' makes the kernel hand them to the other workers");
    }

    /**
     * A warning when this process ignores SIGHUP, as everything started by {@code nohup} does: the JVM then installs
     * no handler for it, so SIGHUP would not ask for a rolling restart. Read from the {@code SigIgn} mask of
     * {@code /proc/self/status} (bit 0 is signal 1, SIGHUP); empty when SIGHUP is not ignored or the file is absent.
     */
    static Optional<String> hangupWarning(Path procStatus) {
        try {
            for (String line : Files.readAllLines(procStatus)) {
                if (line.startsWith("SigIgn:") && (Long.parseUnsignedLong(line.substring(7).trim(), 16) & 1L) != 0) {
                    return Optional.of("loan-runtime cluster: note: this process ignores SIGHUP (started under "
                            + "nohup?), so SIGHUP cannot ask for a rolling restart; start the cluster without nohup "
                            + "(e.g. 'setsid java -jar target/loan-runtime.jar cluster ... &') to use it");
                }
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    void start() {
        if (primary.stopping()) {
            return;
        }
        if (running) {
            primary.say(StatusLines.ROLLING_RESTART_RUNNING);
            return;
        }
        running = true;
        // The spares run the old code and settings: none may be promoted now, new ones come when this ends.
        spares.retireAll();
        primary.say(StatusLines.rollingRestart(slots.size()));
        for (int i = 0; i < slots.size(); i++) {
            WorkerProcess standby = primary.startSpare();
            if (standby == null) {
                end();
                return;
            }
            standbys.add(standby);
            primary.then(standby.standby(), (at, failure) -> {
                if (failure == null && running) {
                    announce(standby, at);
                }
            });
        }
        replace(0);
    }

    private void replace(int index) {
        if (primary.stopping()) {
            end();
            return;
        }
        if (index == slots.size()) {
            primary.say(StatusLines.ROLLING_RESTART_DONE);
            end();
            return;
        }
        WorkerProcess standby = standbys.get(index);
        primary.then(standby.standby().copy().orTimeout(startTimeout.toMillis(), TimeUnit.MILLISECONDS),
                (at, failure) -> onStandby(index, slots.get(index), standby, failure));
    }

    private void onStandby(int index, Primary.Slot slot, WorkerProcess standby, Throwable failure) {
        if (primary.stopping()) {
            end();
            return;
        }
        if (failure != null) {
            stopBecause(slot, standby, "did not stand by within " + startTimeout.toSeconds() + " s");
            return;
        }
        WorkerProcess old = slot.current;
        if (old == null || old.upFor().isEmpty()) {
            adoptOrDiscard(index, slot, standby); // dead or still starting: what starts there now is already new
            return;
        }
        announce(standby, standby.standby().join());   // its own line may not have run yet: the order is not set
        long promotedAt = System.nanoTime();
        primary.promote(slot, standby);
        primary.then(standby.ready(), (readyAt, notReady) -> {
            if (primary.stopping()) {
                end();
            } else if (notReady != null) {
                if (slot.current == standby) {
                    slot.current = old; // the old worker never stopped: it keeps the slot
                } else if (slot.current != old) {
                    old.terminate();    // the slot went on without it (the standby's exit was seen first)
                }
                stopBecause(slot, standby, "did not listen after its promotion");
            } else {
                retire(index, slot, old, standby, promotedAt);
            }
        });
    }

    /**
     * The new worker listens: the old one drains and stops, and the next slot follows once it has said so (its
     * listener closed, every request answered), without waiting for its JVM's exit, or once it has exited.
     */
    private void retire(int index, Primary.Slot slot, WorkerProcess old, WorkerProcess fresh, long promotedAt) {
        old.terminate();
        CompletableFuture<Boolean> stoppedOrExited = old.stopped().copy();
        old.exited().thenRun(() -> stoppedOrExited.complete(false));
        primary.then(stoppedOrExited.orTimeout(killTimeout.toMillis(), TimeUnit.MILLISECONDS),
                (stopped, timeout) -> {
                    if (Boolean.TRUE.equals(stopped)) {
                        stepDone(index, slot, old, fresh, promotedAt, "stopped");
                        return;
                    }
                    if (timeout != null) {
                        old.kill();
                    }
                    primary.then(old.exited(), (exit, ignored) ->
                            stepDone(index, slot, old, fresh, promotedAt, "exit " + exit));
                });
    }

    private void stepDone(int index, Primary.Slot slot, WorkerProcess old, WorkerProcess fresh, long promotedAt,
                          String end) {
        primary.say(StatusLines.replaced(slot.id, old.pid(), end, fresh.pid(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - promotedAt)));
        replace(index + 1);
    }

    /** "spare pid=P standing by, MS ms after its start", once per standby. */
    private void announce(WorkerProcess standby, long standingByAt) {
        if (announced.add(standby)) {
            primary.say(StatusLines.standingBy(standby.pid(),
                    standby.age().minusNanos(System.nanoTime() - standingByAt).toMillis()));
        }
    }

    private void stopBecause(Primary.Slot slot, WorkerProcess standby, String why) {
        standby.kill();
        primary.warn("loan-runtime cluster: rolling restart stopped: new worker " + slot.id + " pid="
                + standby.pid() + " " + why + (standby.lastError().isEmpty() ? "" : " (" + standby.lastError() + ")")
                + "; the old workers keep serving");
        end();
    }

    /** Not running any more, for whatever reason: the standbys not promoted go, spares come back. */
    private void end() {
        running = false;
        standbys.stream().filter(w -> w.id() == 0).forEach(WorkerProcess::terminate);
        standbys.clear();
        announced.clear();
        spares.enable();
    }

    /** The old worker is gone or is a new one still starting: the standby takes the slot unless another has it. */
    private void adoptOrDiscard(int index, Primary.Slot slot, WorkerProcess standby) {
        if (slot.current == null) {
            if (slot.pendingStart != null) {
                slot.pendingStart.cancel(false);
                slot.pendingStart = null;
            }
            primary.promote(slot, standby);
        } else {
            standby.terminate();
        }
        replace(index + 1);
    }
}
