package dev.loanruntime.loan;

import java.util.logging.Logger;

import io.helidon.common.buffers.DataReader;

/**
 * Helidon 4.5 logs a client that closes its connection in the middle of a request head (a dropped mobile link, a
 * port scanner, a fuzzer) as a WARNING "Internal server error" with a stack trace: one log entry per such client, a
 * cheap way to flood the log. This drops exactly those records; every other warning stays.
 */
public final class ClientDisconnects {
    // JUL holds loggers weakly: keep the configured one alive, or its filter goes with it.
    private static final Logger HTTP1 = Logger.getLogger("io.helidon.webserver.http1.Http1Connection");

    private ClientDisconnects() {
    }

    /** Installs the filter; idempotent, safe from any thread. */
    public static void quiet() {
        HTTP1.setFilter(record -> !endedByClient(record.getThrown()));
    }

    /** Whether {@code thrown} comes from the connection's input ending before the request head did. */
    static boolean endedByClient(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof DataReader.InsufficientDataAvailableException) {
                return true;
            }
        }
        return false;
    }
}
