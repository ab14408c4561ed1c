package dev.loanruntime.serve;

import java.util.Optional;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Helidon 4.5's {@code WebServer.start()} does not throw when a listener cannot start (the port is taken, the address
 * is not this machine's): its {@code LoomServer} logs the failure at ERROR with the whole stack trace, about 40 lines,
 * and returns a server that does not run. {@link LoanServer#start} reports that in one line of its own; this keeps
 * those records of {@code LoomServer} (ERROR, on the thread that starts the server, while it starts) out of the log
 * and hands their cause to that line. The logger's other records, and any record of another thread, pass as before.
 */
final class StartFailure {
    /** Held: java.util.logging keeps loggers weakly, and one created again would have lost the filter. */
    private static final Logger LOOM_SERVER = Logger.getLogger("io.helidon.webserver.LoomServer");
    /** On a thread inside {@link #during}: the cause of the first caught record, once there is one. */
    private static final ThreadLocal<String[]> STARTING = new ThreadLocal<>();

    static {
        Filter configured = LOOM_SERVER.getFilter();
        LOOM_SERVER.setFilter(record -> !caught(record) && (configured == null || configured.isLoggable(record)));
    }

    private StartFailure() {
    }

    /**
     * Runs {@code start} on this thread; blocks as long as it does. Returns what Helidon gave as the reason a
     * listener did not start (e.g. "Address already in use"), or empty when it logged no such failure.
     */
    static Optional<String> during(Runnable start) {
        String[] cause = new String[1];
        STARTING.set(cause);
        try {
            start.run();
        } finally {
            STARTING.remove();
        }
        return Optional.ofNullable(cause[0]);
    }

    private static boolean caught(LogRecord record) {
        String[] cause = STARTING.get();
        if (cause == null || record.getLevel().intValue() < Level.SEVERE.intValue()) {
            return false;
        }
        if (cause[0] == null && record.getThrown() != null) {
            Throwable root = record.getThrown();
            while (root.getCause() != null) {
                root = root.getCause();
            }
            cause[0] = root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        }
        return true;
    }
}
