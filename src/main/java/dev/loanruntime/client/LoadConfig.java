package dev.loanruntime.client;

import java.time.Duration;

import dev.loanruntime.cli.UsageError;

/**
 * One bounded load run. Validated on construction: the error names the option and the allowed values.
 *
 * @param target         the server
 * @param path           path and query of every request
 * @param rate           requests per second for the open loop; 0 for the closed loop
 * @param concurrency    closed loop: workers, each sending its next request when the last one is answered
 * @param maxInFlight    open loop: requests in flight at most; a request that finds no room waits, and that
 *                       wait counts in its latency
 * @param duration       how long to send, or null when bounded by {@code requests}
 * @param requests       how many requests to send, or 0 when bounded by {@code duration}
 * @param warmupRequests requests sent first and not measured
 * @param timeout        read timeout per request
 * @param keepAlive      reuse connections
 * @param h2Connections  0 for HTTP/1.1; else HTTP/2 with prior knowledge, every request a stream on one of this many
 *                       connections
 */
record LoadConfig(Target target, String path, double rate, int concurrency, int maxInFlight, Duration duration,
                  long requests, int warmupRequests, Duration timeout, boolean keepAlive, int h2Connections) {
    static final int MAX_CONCURRENCY = 20_000;

    LoadConfig {
        Target.path("--path", path);
        if (rate < 0 || rate > 1_000_000) {
            throw bad("--rate", "requests per second, up to 1000000 (0: a closed loop)", rate);
        }
        if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
            throw bad("--concurrency", "an integer from 1 to " + MAX_CONCURRENCY, concurrency);
        }
        if (maxInFlight < 1 || maxInFlight > MAX_CONCURRENCY) {
            throw bad("--max-in-flight", "an integer from 1 to " + MAX_CONCURRENCY, maxInFlight);
        }
        if ((duration == null) == (requests <= 0)) {
            throw new IllegalArgumentException("Give exactly one of --duration and --requests (requests: a positive "
                    + "integer, duration: e.g. 10s)");
        }
        if (duration != null && (duration.isZero() || duration.isNegative())) {
            throw bad("--duration", "a positive duration such as 10s", duration);
        }
        if (warmupRequests < 0) {
            throw bad("--warmup-requests", "an integer of 0 or more", warmupRequests);
        }
        if (h2Connections < 0 || h2Connections > MAX_CONCURRENCY) {
            throw bad("--connections", "an integer from 1 to " + MAX_CONCURRENCY, h2Connections);
        }
    }

    /** The requester this run sends with. */
    Requester requester() {
        return h2Connections > 0 ? Requester.http2(target, timeout, h2Connections)
                : new Requester(target, keepAlive, timeout, connections());
    }

    boolean openLoop() {
        return rate > 0;
    }

    /** Connections the client may need at once, so that its connection cache keeps them all. */
    int connections() {
        return openLoop() ? maxInFlight : concurrency;
    }

    /** The configuration line printed before any result. */
    String describe() {
        String shape = openLoop()
                ? "mode=open rate=%s/s max-in-flight=%d".formatted(number(rate), maxInFlight)
                : "mode=closed concurrency=%d".formatted(concurrency);
        String bound = duration != null ? "duration=" + duration.toMillis() + "ms" : "requests=" + requests;
        String protocol = h2Connections > 0 ? "protocol=h2c connections=" + h2Connections
                : "protocol=http/1.1 keep-alive=" + keepAlive;
        return "load url=%s path=%s %s %s warmup-requests=%d timeout=%dms %s".formatted(
                target, path, shape, bound, warmupRequests, timeout.toMillis(), protocol);
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }

    private static IllegalArgumentException bad(String option, String expected, Object value) {
        return UsageError.invalid(option, expected, value);
    }
}
