package dev.loanruntime.overload;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

import dev.loanruntime.monitor.CarrierDelay;

/**
 * {@code serve --shed-delay DURATION}: refuses heavy requests while the carrier delay is over {@code bound}, as
 * fastify's under-pressure refuses requests while Node's event-loop delay is. Over it means: the p99 of the monitor's
 * last one-second window is over it, or the probe woke later than it since that window ended (a stall that just
 * ended, which only the next window's p99 will hold), or it is late by more right now (its sleep fell due longer ago
 * and it has not run yet: a stall that no window shows until the probe runs). Any thread; reads volatile fields.
 */
public final class DelayGuard implements Admission {
    private final CarrierDelay delay;
    private final long bound;
    private final LongAdder shed = new LongAdder();

    public DelayGuard(CarrierDelay delay, Duration bound) {
        this.delay = delay;
        this.bound = bound.toNanos();
    }

    @Override
    public void admit() {
        long window = delay.lastWindowP99Nanos();
        long since = delay.currentWindowMaxNanos();
        long stalled = delay.stalledNanos();
        if (window > bound || since > bound || stalled > bound) {
            shed.increment();
            throw new OverloadedException(String.format(Locale.ROOT, "the carrier delay is over %d ms (p99 of the "
                    + "last second %.1f ms, largest since %.1f ms, late now %.1f ms)", bound / 1_000_000, window / 1e6,
                    since / 1e6, stalled / 1e6));
        }
    }

    /** Whether a heavy request arriving now would be refused. */
    public boolean shedding() {
        return delay.lastWindowP99Nanos() > bound || delay.currentWindowMaxNanos() > bound
                || delay.stalledNanos() > bound;
    }

    /** Heavy requests refused so far. */
    public long shed() {
        return shed.sum();
    }
}
