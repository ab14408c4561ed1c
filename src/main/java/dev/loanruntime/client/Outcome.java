package dev.loanruntime.client;

/**
 * One request as the client saw it.
 *
 * @param startNanos {@link System#nanoTime()} when the request was due (open loop) or sent
 * @param endNanos   {@link System#nanoTime()} when the response was read, or the failure seen
 * @param status     HTTP status code, 0 when there was no response
 * @param error      why there was no response, null when there was one
 * @param serverTiming the response's {@code Server-Timing} header when stages were asked for, else null
 */
public record Outcome(long startNanos, long endNanos, int status, ErrorKind error, String serverTiming) {
    long micros() {
        return Math.max(0, (endNanos - startNanos) / 1_000);
    }

    double millis() {
        return (endNanos - startNanos) / 1e6;
    }

    boolean responded() {
        return error == null;
    }

    /** A transport failure, or a status of 400 or more. */
    boolean failed() {
        return error != null || status >= 400;
    }

    /** "connect", "timeout", "status 503": how errors are counted and printed. */
    String errorLabel() {
        return error != null ? error.label() : "status " + status;
    }
}
