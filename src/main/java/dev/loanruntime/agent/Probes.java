package dev.loanruntime.agent;

import java.time.Duration;
import java.util.Locale;

import dev.loanruntime.monitor.CarrierDelay;
import dev.loanruntime.monitor.Pinning;
import dev.loanruntime.monitor.WindowClock;
import dev.loanruntime.settings.ThreadModel;
import dev.loanruntime.settings.Threshold;

/**
 * The server's monitors in another JVM: a carrier-delay probe on a virtual thread (how long ready virtual threads wait
 * for a carrier) and one on a platform thread beside it (the OS scheduler's share of that wait, and GC pauses, which
 * both see), with {@code pins=on} the pin watch, and on JDK 24+ the scheduler's counts, each probe's windows ended
 * once a second on a platform thread of their own. With {@code log-over}, a second whose virtual-thread delay reached
 * it gets one line on stderr. The same classes as the server's (monitor/), nothing of the application touched.
 */
final class Probes implements AutoCloseable {
    final CarrierDelay virtual;
    final CarrierDelay platform;
    private final Threshold logOver;
    private final WindowClock clock;

    Probes(AgentOptions options) {
        this.logOver = options.logOver();
        this.virtual = CarrierDelay.start(ThreadModel.VIRTUAL, options.resolution());
        this.platform = CarrierDelay.start(ThreadModel.PLATFORM, options.resolution());
        if (options.pins()) {
            Pinning.watch(Threshold.OFF, ownRecording -> {
            });
        }
        this.clock = new WindowClock(this::roll);
    }

    /** On the clock's thread. */
    private void roll() {
        // a stall the probe is still in has no sample yet: how late it is now counts too
        long max = Math.max(virtual.currentWindowMaxNanos(), virtual.stalledNanos());
        virtual.roll();
        platform.roll();
        if (logOver.reachedBy(Duration.ofNanos(max))) {
            System.err.printf(Locale.ROOT, "loan-runtime agent: carrier delay %.1f ms in the last second (log-over "
                    + "%d ms)%n", max / 1e6, logOver.threshold().toMillis());
        }
    }

    @Override
    public void close() {
        clock.close();
        virtual.close();
        platform.close();
    }
}
