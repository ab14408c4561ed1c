package dev.loanruntime.client;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.loanruntime.stages.Stage;
import dev.loanruntime.stages.StageTimes;

/**
 * What {@code probe} measured, as written to {@code --json}: the configuration, every request of every round
 * (offsets and durations in ms from the round's start), and the summary over rounds.
 */
public record ProbeReport(Config config, List<Round> rounds, Summary summary) {

    record Config(String url, String heavy, int heavyCount, String light, int lightCount, long gapMs, int rounds,
                  boolean keepAlive, String label) {
    }

    public record Round(int round, List<Request> requests) {
    }

    /**
     * @param kind       "heavy" or "light"
     * @param startMs    when it was sent, ms after the round started
     * @param durationMs until the whole response was read
     * @param status     HTTP status, 0 without a response
     * @param error      "connect", "timeout", "closed", "other", or null
     * @param stages     with {@code --stages}: the server's stages in ms, in the order they happened (its
     *                   {@code total} ends when the response was ready to send); else null
     * @param outsideMs  with {@code --stages}: the client's duration minus the server's total: the network, the
     *                   client, and any wait the server could not see; else null
     * @param originMs   with {@code --stages}: the request's first point on the server (accepted, or its request line
     *                   on a kept-alive connection) in ms on the server's monotonic clock, so that the requests of a
     *                   round line up on one timeline; else null
     */
    public record Request(String name, String kind, double startMs, double durationMs, int status, String error,
                   Map<String, Double> stages, Double outsideMs, Double originMs) {
        public static Request of(String name, String kind, long roundStartNanos, Outcome o) {
            StageTimes times = o.serverTiming() == null ? null : StageTimes.parse(o.serverTiming());
            return new Request(name, kind, round3((o.startNanos() - roundStartNanos) / 1e6), round3(o.millis()),
                    o.status(), o.error() == null ? null : o.error().label(),
                    times == null ? null : times.millis(),
                    times == null ? null : round3(o.millis() - times.ms(Stage.TOTAL)),
                    times == null ? null : times.origin());
        }

        boolean ok() {
            return error == null && status < 400;
        }
    }

    /**
     * Medians and maxima over every round's requests, in seconds.
     *
     * @param lightOverHeavy median light duration divided by median heavy duration: near 1 when the light
     *                       requests waited for the heavy work, near 0 when they did not
     */
    record Summary(double heavyMedianS, double heavyMaxS, double lightMedianS, double lightMaxS, double lightOverHeavy,
                   int failed) {
        static Summary of(List<Round> rounds) {
            double[] heavy = durations(rounds, "heavy");
            double[] light = durations(rounds, "light");
            int failed = (int) rounds.stream().flatMap(r -> r.requests().stream()).filter(r -> !r.ok()).count();
            double heavyMedian = median(heavy) / 1000;
            double lightMedian = median(light) / 1000;
            return new Summary(round3(heavyMedian), round3(max(heavy) / 1000), round3(lightMedian),
                    round3(max(light) / 1000), heavyMedian == 0 ? 0 : Math.round(lightMedian / heavyMedian * 1e4) / 1e4,
                    failed);
        }

        /**
         * One line that reads the result: whether the light requests waited for the heavy one, and how much of it.
         * Over half of it: they waited; under a quarter: they did not (the lesson's two outcomes); else in part.
         */
        String reading() {
            if (heavyMedianS == 0) {
                return "no heavy request was timed, so nothing can be read about waiting for it";
            }
            String share = String.format(Locale.ROOT, "%.2f of it (median light / median heavy)", lightOverHeavy);
            String read = lightOverHeavy >= 0.5 ? "the light requests waited for the heavy one: " + share
                    : lightOverHeavy < 0.25 ? "the light requests did not wait for the heavy one: " + share
                    : "the light requests waited for part of the heavy one: " + share;
            return failed == 0 ? read : read + "; " + failed + " request(s) failed, so read it with care";
        }

        private static double[] durations(List<Round> rounds, String kind) {
            return rounds.stream().flatMap(r -> r.requests().stream()).filter(r -> r.kind().equals(kind))
                    .mapToDouble(Request::durationMs).toArray();
        }
    }

    static double median(double[] values) {
        if (values.length == 0) {
            return 0;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    private static double max(double[] values) {
        return Arrays.stream(values).max().orElse(0);
    }

    static double round3(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
