package dev.loanruntime.stages;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;

import dev.loanruntime.settings.Labelled;

/**
 * When a response carries the W3C {@code Server-Timing} header with the request's stages: only when the request
 * asks with {@code Loan-Timing: on} (the default: timings reveal internals), on every response (for a browser's
 * developer tools, which cannot add a header to a navigation), or never.
 */
public enum ServerTiming implements Labelled {
    ON_REQUEST,
    ALWAYS,
    OFF;

    /** The request header that asks for the stages. */
    public static final HeaderName ASK = HeaderNames.create("Loan-Timing");
    /** The response header that carries them. */
    public static final HeaderName HEADER = HeaderNames.create("Server-Timing");

    /** Parses a {@link #label()}: {@code on-request}, {@code always}, {@code off}; the error names the bad value. */
    public static ServerTiming parse(String value) {
        return Labelled.parse(ServerTiming.class, value);
    }

    boolean shows(Headers request) {
        return switch (this) {
            case ALWAYS -> true;
            case OFF -> false;
            case ON_REQUEST -> request.contains(ASK) && "on".equalsIgnoreCase(request.get(ASK).get());
        };
    }

    /**
     * {@code carrier;dur=1510.214, line;dur=0.021, ..., total;dur=1510.272, origin;desc="…"}: the stages so far in
     * milliseconds, then the request's first point in milliseconds on the server's monotonic clock, so that a client
     * can put the requests it sent to one server on one timeline. Durations and names only: never a path, a member or
     * a session.
     */
    static String format(RequestStamps stamps) {
        StringBuilder value = new StringBuilder(256);
        for (RequestStamps.Span stage : stamps.stages()) {
            value.append(stage.stage().label()).append(";dur=");
            millis(value, stage.nanos());
            value.append(", ");
        }
        value.append("origin;desc=\"");
        millis(value, stamps.origin());
        return value.append('"').toString();
    }

    /** Nanoseconds as milliseconds with three decimals, without {@code String.format}'s cost. */
    private static void millis(StringBuilder out, long nanos) {
        long micros = Math.round(nanos / 1000.0);
        if (micros < 0) {
            out.append('-');
            micros = -micros;
        }
        long fraction = micros % 1000;
        out.append(micros / 1000).append('.');
        if (fraction < 100) {
            out.append(fraction < 10 ? "00" : "0");
        }
        out.append(fraction);
    }
}
