package dev.loanruntime.settings;

/** Which kind of thread runs the route handlers; {@link #label()} names it on the command line and in reports. */
public enum ThreadModel implements Labelled {
    /** Each request's handler runs on its own virtual thread (Helidon's default). Not time-sliced by the JDK today. */
    VIRTUAL,
    /** Each handler runs on a fixed pool of platform threads, time-sliced by the OS: thread-per-request. */
    PLATFORM;

    /** Parses {@code virtual} or {@code platform}; the error names the bad value and the allowed ones. */
    public static ThreadModel parse(String value) {
        return Labelled.parse(ThreadModel.class, value);
    }
}
