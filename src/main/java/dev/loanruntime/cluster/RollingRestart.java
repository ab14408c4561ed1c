package dev.loanruntime.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.loanruntime.protocol.StatusLines;

/**
 * Replaces the workers one at a time: start the new worker, wait until it listens on the shared port, then stop the
 * old one gracefully and wait until it has exited before the next. At every moment at least N workers listen, so a
 * new connection always finds a listener. All methods run on the primary's control thread and never block.
 */
final class RollingRestart {
    private final Control primary;
    private final List<Primary.Slot> slots;
    private final Spares spares;
    private final Duration killTimeout;
    private boolean running;

    /** Replaces the workers of {@code slots}, retiring {@code spares} meanwhile; SIGKILL after {@code killTimeout}. */
    RollingRestart(Control primary, List<Primary.Slot> slots, Spares spares, Duration killTimeout) {
        this.primary = primary;
        this.slots = slots;
        this.spares = spares;
        this.killTimeout = killTimeout;
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
        Primary.Slot slot = slots.get(index);
        WorkerProcess old = slot.current;
        if (old == null || old.upFor().isEmpty()) {
            replace(index + 1); // dead or still starting: whatever runs there next is already new
            return;
        }
        WorkerProcess fresh = primary.startWorker(slot.id);
        if (fresh == null) {
            end();
            return;
        }
        primary.then(fresh.ready(), (readyAt, failure) -> onFreshReady(index, slot, old, fresh, failure));
    }

    private void onFreshReady(int index, Primary.Slot slot, WorkerProcess old, WorkerProcess fresh, Throwable failure) {
        if (primary.stopping()) {
            end();
            return;
        }
        if (failure != null) {
            fresh.kill();
            primary.warn("loan-runtime cluster: rolling restart stopped: new worker " + slot.id + " pid="
                    + fresh.pid() + " did not start (" + fresh.lastError() + "); the old workers keep serving");
            end();
            return;
        }
        if (slot.current != old) {
            adoptOrDiscard(index, slot, fresh);
            return;
        }
        slot.current = fresh;
        old.terminate();
        primary.then(old.exited().copy().orTimeout(killTimeout.toMillis(), TimeUnit.MILLISECONDS),
                (code, timeout) -> {
                    if (timeout != null) {
                        old.kill();
                    }
                    primary.then(old.exited(), (exit, ignored) -> {
                        primary.say(StatusLines.replaced(slot.id, old.pid(), exit, fresh.pid()));
                        replace(index + 1);
                    });
                });
    }

    /** Not running any more, for whatever reason: spares again (none start while the cluster stops). */
    private void end() {
        running = false;
        spares.enable();
    }

    /** The old worker died while its successor started: the successor takes the slot unless another already has. */
    private void adoptOrDiscard(int index, Primary.Slot slot, WorkerProcess fresh) {
        if (slot.current == null) {
            if (slot.pendingStart != null) {
                slot.pendingStart.cancel(false);
                slot.pendingStart = null;
            }
            slot.current = fresh;
        } else {
            fresh.terminate();
        }
        replace(index + 1);
    }
}
