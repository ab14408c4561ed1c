package dev.loanruntime.client;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * What {@code load} measured, as printed and as written to {@code --json}. Latencies in ms (3 decimals).
 *
 * @param latencyMs   every response's latency, whatever its status
 * @param succeeded   responses with a status below 400
 * @param goodputPerS those per second
 * @param okLatencyMs their latencies: a 503 answered at once does not pull these down
 * @param cdf     the latency distribution: (percentile, ms) points, for charts
 * @param server  the watched server process, or null without {@code --watch-pid}
 * @param client  this process's own CPU over the run: whether the client, not the server, may have been the limit
 * @param stopped a signal ended the run before its own end; the figures cover the run up to then
 */
record LoadReport(Config config, long requests, long responses, long failed, Map<String, Long> errors,
                  double elapsedS, double throughputPerS, Latency latencyMs, long succeeded, double goodputPerS,
                  Latency okLatencyMs, List<Point> cdf, ProcWatch.Server server, Client client, boolean stopped) {

    /**
     * The load client's own CPU over the timed run.
     *
     * @param cpuS     CPU seconds (user + system, every thread); null when the JVM cannot tell
     * @param cpuCores those over the run's wall time: how many CPUs the client kept busy
     * @param cpus     the CPUs it may run on (its affinity, e.g. 1 under {@code taskset -c 1})
     * @param bound    it kept 90 % or more of them busy: its rate may be its own ceiling, not the server's
     */
    record Client(Double cpuS, Double cpuCores, int cpus, boolean bound) {
        static final double SATURATED = 0.9;

        static Client of(long cpuNanos, long elapsedNanos, int cpus) {
            if (cpuNanos < 0 || elapsedNanos <= 0) {
                return new Client(null, null, cpus, false);
            }
            double cores = (double) cpuNanos / elapsedNanos;
            return new Client(Math.round(cpuNanos / 1e6) / 1e3, Math.round(cores * 1000) / 1000.0, cpus,
                    cores >= SATURATED * cpus);
        }
    }

    /** {@code connections}: with {@code protocol} h2c, the connections the streams share; null for HTTP/1.1. */
    record Config(String url, String path, String mode, int concurrency, double rate, int maxInFlight,
                  Long durationMs, Long requests, int warmupRequests, long timeoutMs, boolean keepAlive,
                  String protocol, Integer connections, String label, String line) {
        static Config of(LoadConfig c, String label) {
            boolean h2 = c.h2Connections() > 0;
            return new Config(c.target().toString(), c.path(), c.openLoop() ? "open" : "closed", c.concurrency(),
                    c.rate(), c.maxInFlight(), c.duration() == null ? null : c.duration().toMillis(),
                    c.requests() > 0 ? c.requests() : null, c.warmupRequests(), c.timeout().toMillis(), c.keepAlive(),
                    h2 ? "h2c" : "http/1.1", h2 ? c.h2Connections() : null, label, c.describe());
        }
    }

    /** Percentiles in ms; every one null when there was nothing to measure (no response, or no success). */
    record Latency(Double p50, Double p90, Double p99, Double p999, Double max, Double mean) {
        static final Latency NONE = new Latency(null, null, null, null, null, null);

        static Latency of(Histogram h) {
            if (h.getTotalCount() == 0) {
                return NONE;
            }
            return new Latency(ms(h.getValueAtPercentile(50)), ms(h.getValueAtPercentile(90)),
                    ms(h.getValueAtPercentile(99)), ms(h.getValueAtPercentile(99.9)), ms(h.getMaxValue()),
                    ms(h.getMean()));
        }
    }

    record Point(double percentile, double ms) {
    }

    static LoadReport of(LoadConfig config, String label, LoadRun.Measured m, ProcWatch.Server server) {
        List<Point> cdf = new ArrayList<>();
        if (m.latencies().getTotalCount() > 0) {
            cdf.add(new Point(0, ms(m.latencies().getMinValue())));
            for (HistogramIterationValue v : m.latencies().percentiles(20)) {
                cdf.add(new Point(Math.round(v.getPercentileLevelIteratedTo() * 1e4) / 1e4,
                        ms(v.getValueIteratedTo())));
            }
        }
        return new LoadReport(Config.of(config, label), m.requests(), m.responses(), m.failed(), m.errors(),
                Math.round(m.elapsedNanos() / 1e6) / 1e3, Math.round(m.throughput() * 1000) / 1000.0,
                Latency.of(m.latencies()), m.okLatencies().getTotalCount(), Math.round(m.goodput() * 1000) / 1000.0,
                Latency.of(m.okLatencies()), cdf, server,
                Client.of(m.cpuNanos(), m.elapsedNanos(), Runtime.getRuntime().availableProcessors()), m.stopped());
    }

    /** The aligned result lines, after the configuration line. */
    void print(PrintStream out) {
        out.println(config.line());
        out.printf("requests    %d (responses %d, failed %d)%n", requests, responses, failed);
        out.printf("elapsed     %.3f s%s%n", elapsedS, stopped ? " (stopped by a signal before its end)" : "");
        out.printf("throughput  %.3f req/s%n", throughputPerS);
        out.printf("p50         %s%n", ms(latencyMs.p50()));
        out.printf("p90         %s%n", ms(latencyMs.p90()));
        out.printf("p99         %s%n", ms(latencyMs.p99()));
        out.printf("p99.9       %s%n", ms(latencyMs.p999()));
        out.printf("max         %s%n", ms(latencyMs.max()));
        if (failed > 0) {
            out.printf("ok          %d (%.3f req/s), p50 %s, p99 %s, max %s%n", succeeded, goodputPerS,
                    ms(okLatencyMs.p50()), ms(okLatencyMs.p99()), ms(okLatencyMs.max()));
        }
        out.printf("errors      %s%n", errors.isEmpty() ? "none" : errors.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" ")));
        if (client.cpuS() != null) {
            out.printf("client      cpu %.2f s, %.2f of %d CPU(s)%s%n", client.cpuS(), client.cpuCores(), client.cpus(),
                    client.bound() ? ": CLIENT-BOUND, the rate may be the client's own ceiling" : "");
        }
        if (server != null) {
            out.printf("server      pid %d threads %d peak %d rss %.1f MiB peak %.1f MiB cpu %.2f s%n", server.pid(),
                    server.threadsBefore(), server.peakThreads(), server.rssBeforeMiB(), server.peakRssMiB(),
                    server.cpuS());
        }
        out.flush();
    }

    private static double ms(double micros) {
        return Math.round(micros) / 1000.0;
    }

    /** "12.345 ms", or "-" when nothing was measured. */
    private static String ms(Double ms) {
        return ms == null ? "-" : String.format(Locale.ROOT, "%.3f ms", ms);
    }
}
