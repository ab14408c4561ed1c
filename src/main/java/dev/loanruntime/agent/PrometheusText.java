package dev.loanruntime.agent;

import java.util.Locale;
import java.util.function.ToDoubleFunction;

import dev.loanruntime.monitor.CarrierDelay;
import dev.loanruntime.monitor.LatencyWindows;
import dev.loanruntime.monitor.Pinning;
import dev.loanruntime.monitor.VirtualThreadScheduler;

/**
 * The agent's figures in Prometheus' text format, under the server's names ({@code loan_carrier_delay_seconds} ...),
 * with a {@code thread} label telling the virtual-thread probe from the platform one. NaN, not 0, for what is not
 * measured (no sample yet, no pin watch, a JDK without the scheduler's counts).
 */
final class PrometheusText {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private PrometheusText() {
    }

    static String of(Probes probes) {
        StringBuilder out = new StringBuilder(2048);
        CarrierDelay.Report virtual = probes.virtual.report();
        CarrierDelay.Report platform = probes.platform.report();
        help(out, "loan_carrier_delay_seconds", "how late the carrier-delay probe woke over the last 10 s: the time "
                + "ready work waited for a thread to run it (thread: the probe's kind)");
        for (CarrierDelay.Report r : new CarrierDelay.Report[] {virtual, platform}) {
            quantile(out, r, "0.5", LatencyWindows.Summary::p50Ms);
            quantile(out, r, "0.99", LatencyWindows.Summary::p99Ms);
            quantile(out, r, "1", LatencyWindows.Summary::maxMs);
        }
        help(out, "loan_carrier_delay_samples", "the probe's samples over the last 10 s");
        for (CarrierDelay.Report r : new CarrierDelay.Report[] {virtual, platform}) {
            line(out, "loan_carrier_delay_samples{thread=\"" + r.thread() + "\"}", r.last10s().count());
        }
        help(out, "loan_carrier_delay_late_now_seconds", "how late the probe is right now: a stall in progress, before "
                + "any window has it");
        for (CarrierDelay.Report r : new CarrierDelay.Report[] {virtual, platform}) {
            line(out, "loan_carrier_delay_late_now_seconds{thread=\"" + r.thread() + "\"}", r.lateNowMs() / 1000);
        }
        Pinning.Snapshot pins = Pinning.snapshot();
        help(out, "loan_pinned_events", "virtual threads that parked while pinned to their carrier (NaN until the pin "
                + "watch runs)");
        line(out, "loan_pinned_events", pins.watching() ? pins.events() : Double.NaN);
        help(out, "loan_pinned_longest_ms", "the longest pinned park, in ms");
        line(out, "loan_pinned_longest_ms", pins.watching() ? pins.longestMs() : Double.NaN);
        VirtualThreadScheduler.Counts counts = VirtualThreadScheduler.now().orElse(null);
        scheduler(out, "loan_vthread_scheduler_queued", "the JDK scheduler's estimate of virtual threads queued "
                + "(JDK 24+)", counts, VirtualThreadScheduler.Counts::queued);
        scheduler(out, "loan_vthread_scheduler_mounted", "the JDK scheduler's estimate of virtual threads mounted "
                + "(JDK 24+)", counts, VirtualThreadScheduler.Counts::mounted);
        scheduler(out, "loan_vthread_scheduler_parallelism", "the JDK scheduler's target number of carriers "
                + "(JDK 24+)", counts, VirtualThreadScheduler.Counts::parallelism);
        return out.toString();
    }

    private static void quantile(StringBuilder out, CarrierDelay.Report r, String quantile,
                                 java.util.function.Function<LatencyWindows.Summary, Double> figure) {
        Double ms = figure.apply(r.last10s());
        line(out, "loan_carrier_delay_seconds{quantile=\"" + quantile + "\",thread=\"" + r.thread() + "\"}",
                ms == null ? Double.NaN : ms / 1000);
    }

    private static void scheduler(StringBuilder out, String name, String help, VirtualThreadScheduler.Counts counts,
                                  ToDoubleFunction<VirtualThreadScheduler.Counts> figure) {
        help(out, name, help);
        line(out, name, counts == null ? Double.NaN : figure.applyAsDouble(counts));
    }

    private static void help(StringBuilder out, String name, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(" gauge\n");
    }

    private static void line(StringBuilder out, String sample, double value) {
        out.append(sample).append(' ').append(Double.isNaN(value) ? "NaN" : String.format(Locale.ROOT, "%s", value))
                .append('\n');
    }
}
