package dev.loanruntime.cluster;

import java.time.Duration;
import java.util.Optional;

import dev.loanruntime.cli.UsageError;

/**
 * When to start a replacement for a worker that died, and when to give up. One instance per worker slot; not
 * thread-safe (the primary calls it from its control thread only). Pure: it is told how long the worker was up and
 * answers, so it can be tested without processes or clocks.
 *
 * <p>A failure is <em>fast</em> when the worker never became ready or died within {@code minUptime} of becoming
 * ready. After {@code maxFastFailures} fast failures in a row the primary gives up: a worker that cannot start (a
 * taken port, a bad setting) must not be restarted forever. The first death of a slot is replaced at once: one
 * crash says nothing about the next worker, and every millisecond of delay is a millisecond of lost capacity. Each
 * further restart waits longer than the one before ({@code initialDelay}, then times {@code factor}, at most
 * {@code maxDelay}); a worker that stayed up for {@code stableAfter} starts over with an immediate restart.
 */
final class RestartPolicy {
    private final Settings settings;
    private int fastFailures;
    private Duration lastDelay; // null: no restart since the slot was new or stable

    RestartPolicy(Settings settings) {
        this.settings = settings;
    }

    /**
     * The limits of the policy.
     *
     * @param minUptime       a worker that dies sooner after becoming ready failed fast
     * @param initialDelay    the delay of the second restart in a row (the first is immediate)
     * @param factor          each further restart waits this much longer
     * @param maxDelay        the longest delay
     * @param stableAfter     a worker up this long resets the back-off
     * @param maxFastFailures consecutive fast failures that make the primary give up
     */
    record Settings(Duration minUptime, Duration initialDelay, double factor, Duration maxDelay,
                    Duration stableAfter, int maxFastFailures) {
        Settings {
            if (factor < 1.0) {
                throw new IllegalArgumentException("back-off factor must be at least 1 but was " + factor);
            }
            if (maxFastFailures < 1) {
                throw UsageError.invalid("--max-fast-failures", "an integer of at least 1", maxFastFailures);
            }
        }

        /** At once, then ×1.5 from 100 ms up to 15 s, reset after 30 s up, give up after the given fast failures. */
        static Settings of(Duration minUptime, int maxFastFailures) {
            return new Settings(minUptime, Duration.ofMillis(100), 1.5, Duration.ofSeconds(15),
                    Duration.ofSeconds(30), maxFastFailures);
        }
    }

    /** What to do about a worker that died. */
    sealed interface Decision {
        /** Start a replacement after {@code delay}. */
        record Restart(Duration delay) implements Decision {
        }

        /** Stop the cluster: the worker failed fast {@code fastFailures} times in a row. */
        record GiveUp(int fastFailures) implements Decision {
        }
    }

    /**
     * A worker of this slot died.
     *
     * @param upFor how long it had been ready, empty when it never became ready
     */
    Decision onExit(Optional<Duration> upFor) {
        boolean fast = upFor.isEmpty() || upFor.get().compareTo(settings.minUptime()) < 0;
        fastFailures = fast ? fastFailures + 1 : 0;
        if (fastFailures >= settings.maxFastFailures()) {
            return new Decision.GiveUp(fastFailures);
        }
        boolean stable = upFor.isPresent() && upFor.get().compareTo(settings.stableAfter()) >= 0;
        Duration delay;
        if (stable || lastDelay == null) {
            delay = Duration.ZERO;
        } else if (lastDelay.isZero()) {
            delay = settings.initialDelay();
        } else {
            long grown = (long) Math.ceil(lastDelay.toNanos() * settings.factor());
            delay = Duration.ofNanos(Math.min(grown, settings.maxDelay().toNanos()));
        }
        lastDelay = delay;
        return new Decision.Restart(delay);
    }

    /** Fast failures in a row so far. */
    int fastFailures() {
        return fastFailures;
    }
}
