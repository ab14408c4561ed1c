package dev.loanruntime.cli;

import sun.misc.Signal;

/**
 * This process's own handlers for SIGTERM, SIGINT and SIGHUP, so that a requested stop ends with status 0 after a
 * graceful stop rather than with the JVM's 128 + signal. The JDK has no supported API for this; {@code
 * sun.misc.Signal} (module {@code jdk.unsupported}) is the one there is, kept to this class so that javac's warning
 * about it (which no {@code @SuppressWarnings} silences) stands in one place. A handler runs on a thread the JVM
 * starts for the signal; it should return quickly.
 */
public final class Signals {
    private Signals() {
    }

    /** Runs {@code handler} on each {@code name} signal ({@code "TERM"}, {@code "INT"}, {@code "HUP"}). */
    public static void on(String name, Runnable handler) {
        Signal.handle(new Signal(name), signal -> handler.run());
    }
}
