package dev.loanruntime.serve;

import java.util.concurrent.atomic.LongAdder;

import dev.loanruntime.overload.Admission;
import dev.loanruntime.overload.DelayGuard;
import dev.loanruntime.monitor.CarrierDelay;
import dev.loanruntime.monitor.InFlight;
import dev.loanruntime.monitor.LatencyWindows;
import dev.loanruntime.monitor.WindowClock;
import dev.loanruntime.settings.Switch;
import dev.loanruntime.settings.Threshold;

/**
 * What one server measures of itself, and the guard that reads it: the requests in flight, the carrier-delay probe
 * ({@code --carrier-delay}), the crypto pool's queue waits, the store pool's waits and holds, the delay guard
 * ({@code --shed-delay}) and what the listener's limit refused. One clock rolls every window once a second; one
 * {@link #close()} stops the probe and the clock. The figures are safe to read from any thread.
 */
final class Monitors implements AutoCloseable {
    final InFlight inFlight = new InFlight();
    /** The crypto pool's queue waits (submit to start), always on. */
    final LatencyWindows cryptoQueueWaits = new LatencyWindows();
    /** Waits for a connection of the store's pool, always on. */
    final LatencyWindows storePoolWaits = new LatencyWindows();
    /** How long each connection of the store's pool was held: Little's law's W for the pool. */
    final LatencyWindows storePoolHolds = new LatencyWindows();
    /** Requests the listener's concurrency limit ({@code --limit}) refused. */
    final LongAdder refusedByLimit = new LongAdder();
    /** The carrier-delay probe, or null with {@code --carrier-delay off}. */
    final CarrierDelay delay;
    /** The delay guard, or null without {@code --shed-delay}. */
    final DelayGuard guard;
    /** Rolls the windows on a platform thread: the probe cannot while every carrier is held. */
    private final WindowClock clock;

    /** Starts the probe (when on) and the clock; returns at once. */
    Monitors(ServeOptions options) {
        this.delay = options.observation().carrierDelay() == Switch.ON
                ? CarrierDelay.start(options.execution().threads(), options.observation().carrierDelayResolution())
                : null;
        try {
            Threshold shedDelay = options.overload().shedDelay();
            this.guard = shedDelay.on() ? new DelayGuard(delay, shedDelay.threshold()) : null;
            this.clock = new WindowClock(this::roll);
        } catch (RuntimeException | Error e) {
            if (delay != null) {
                delay.close();  // the probe must not outlive a start that failed
            }
            throw e;
        }
    }

    /** What the heavy routes ask first: the delay guard with {@code --shed-delay}, else everything passes. */
    Admission admission() {
        return guard != null ? guard : Admission.OPEN;
    }

    /** The carrier delay as of its last window, or {@link CarrierDelay.Report#OFF}. Any thread. */
    CarrierDelay.Report carrierDelay() {
        return delay == null ? CarrierDelay.Report.OFF : delay.report();
    }

    /** Ends every window; on the clock's thread. */
    private void roll() {
        cryptoQueueWaits.roll();
        storePoolWaits.roll();
        storePoolHolds.roll();
        if (delay != null) {
            delay.roll(cryptoQueueWaits.figures().lastWindow());
        }
    }

    /** Stops the clock and the probe; the figures stay as they were. */
    @Override
    public void close() {
        clock.close();
        if (delay != null) {
            delay.close();
        }
    }
}
