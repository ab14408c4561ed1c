package dev.loanruntime.agent;

import dev.loanruntime.monitor.CarrierDelay;
import dev.loanruntime.monitor.LatencyWindows;
import dev.loanruntime.monitor.Pinning;

/** {@link CarrierDelayMXBean} of one probe; every read is a fresh report (microseconds, never blocks). */
record CarrierDelayBean(CarrierDelay probe) implements CarrierDelayMXBean {
    @Override
    public double getP50Ms() {
        return orNaN(last10s().p50Ms());
    }

    @Override
    public double getP99Ms() {
        return orNaN(last10s().p99Ms());
    }

    @Override
    public double getMaxMs() {
        return orNaN(last10s().maxMs());
    }

    @Override
    public long getSamples() {
        return last10s().count();
    }

    @Override
    public double getLateNowMs() {
        return probe.report().lateNowMs();
    }

    @Override
    public long getPinnedEvents() {
        Pinning.Snapshot pins = Pinning.snapshot();
        return pins.watching() ? pins.events() : -1;
    }

    @Override
    public double getPinnedLongestMs() {
        Pinning.Snapshot pins = Pinning.snapshot();
        return pins.watching() ? pins.longestMs() : Double.NaN;
    }

    private LatencyWindows.Summary last10s() {
        return probe.report().last10s();
    }

    private static double orNaN(Double ms) {
        return ms == null ? Double.NaN : ms;
    }
}
