package dev.loanruntime.runtime;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Which kind of thread runs the route handlers. */
public enum ThreadModel {
    /** Each request's handler runs on its own virtual thread (Helidon's default). Not time-sliced by the JDK today. */
    VIRTUAL,
    /** Each handler runs on a fixed pool of platform threads, time-sliced by the OS: thread-per-request. */
    PLATFORM;

    /** The lower-case name used on the command line and in reports. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code virtual} or {@code platform}; the error names the bad value and the allowed ones. */
    public static ThreadModel parse(String value) {
        for (ThreadModel model : values()) {
            if (model.label().equals(value)) {
                return model;
            }
        }
        throw new IllegalArgumentException("expected one of " + allowed() + " but was '" + value + "'");
    }

    static String allowed() {
        return Arrays.stream(values()).map(ThreadModel::label).collect(Collectors.joining(", "));
    }
}
