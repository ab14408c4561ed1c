package dev.loanruntime.http;

import java.util.logging.Logger;

import io.helidon.common.buffers.DataReader;

/**
 * Helidon 4.5 logs two client mistakes as a WARNING "Internal server error" with a stack trace: a connection that
 * ends in the middle of a request head (a dropped mobile link, a port scanner), and a request line whose method is
 * not an HTTP token, e.g. with a control or non-ASCII byte (both of which it also answers 500 rather than 400).
 * One log entry per such request is a cheap way to flood the log. This drops exactly those records; every other
 * warning stays.
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

    /** Whether {@code thrown} comes from the input ending early or from an invalid request line. */
    static boolean endedByClient(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof DataReader.InsufficientDataAvailableException
                    || t instanceof IllegalArgumentException
                            && thrownBy(t, "io.helidon.webserver.http1.Http1Prologue")) {
                return true;
            }
        }
        return false;
    }

    private static boolean thrownBy(Throwable t, String className) {
        for (StackTraceElement frame : t.getStackTrace()) {
            if (frame.getClassName().equals(className)) {
                return true;
            }
        }
        return false;
    }
}
