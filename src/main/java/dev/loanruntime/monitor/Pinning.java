package dev.loanruntime.monitor;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;

import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingStream;

import dev.loanruntime.settings.Threshold;

/**
 * Counts the virtual threads of this JVM that park while pinned to their carrier, from the JDK's own
 * {@code jdk.VirtualThreadPinned} events (JFR), every one of them (threshold zero), and logs those over the
 * {@link Threshold} threshold with the top frames of their stack. The JDK raises the event only when a pinned virtual
 * thread parks (sleeps, waits for a lock or for I/O): a thread blocked in native code without calling back into Java
 * holds its carrier without one, so the count is a lower bound.
 *
 * <p>One watch per process, as pins are the JVM's: {@link #watch} starts it on a daemon platform thread of its own
 * (starting JFR takes a few hundred milliseconds of CPU, which a server's start-up need not wait for); the events
 * arrive on JFR's stream thread about once a second. {@link #snapshot} is safe from any thread and never blocks.
 */
public final class Pinning {
    private static final System.Logger LOGGER = System.getLogger(Pinning.class.getName());
    private static final String EVENT = "jdk.VirtualThreadPinned";
    private static final int TOP_FRAMES = 6;
    private static final AtomicLong PINS = new AtomicLong();
    private static final LongAccumulator LONGEST_NANOS = new LongAccumulator(Math::max, 0);
    private static volatile boolean watching;
    private static boolean started;

    private Pinning() {
    }

    /** What has been seen so far: whether the watch runs, how many pins, the longest (ms). */
    public record Snapshot(boolean watching, long events, double longestMs) {
    }

    /**
     * Starts the watch, once per process; later calls do nothing. Returns at once. {@code ownRecording} is told the id
     * of the JFR recording the watch runs (before it starts): a recording takes every event whose class does not say
     * otherwise, so code with events of its own may want to leave it out (the server's stage events do).
     */
    public static synchronized void watch(Threshold log, LongConsumer ownRecording) {
        if (started) {
            return;
        }
        started = true;
        Thread.ofPlatform().daemon().name("pin-watch-start").start(() -> start(log, ownRecording));
    }

    /** The counts so far; all zero, and not watching, before {@link #watch} has started the stream. */
    public static Snapshot snapshot() {
        return new Snapshot(watching, PINS.get(), LONGEST_NANOS.get() / 1e6);
    }

    private static void start(Threshold log, LongConsumer ownRecording) {
        try {
            Set<Long> before = recordingIds();
            RecordingStream stream = new RecordingStream();
            // A recording takes every event whose class does not say otherwise, the server's stage events too (so
            // that a user's recording has them without naming them). Disabling them here would disable them in the
            // user's recording as well (JFR merges the recordings' settings), so their owner leaves this one out.
            recordingIds().stream().filter(id -> !before.contains(id)).forEach(ownRecording::accept);
            stream.enable(EVENT).withThreshold(Duration.ZERO).withStackTrace();
            // The events are rare and read within a second; keep no history on disk.
            stream.setMaxAge(Duration.ofSeconds(30));
            stream.onEvent(EVENT, event -> seen(event, log));
            stream.startAsync();
            watching = true;
        } catch (RuntimeException | Error e) {     // e.g. a runtime image without jdk.jfr
            LOGGER.log(System.Logger.Level.WARNING, "pinned virtual threads are not counted: " + e);
        }
    }

    private static Set<Long> recordingIds() {
        return FlightRecorder.getFlightRecorder().getRecordings().stream().map(Recording::getId)
                .collect(Collectors.toSet());
    }

    /** On JFR's stream thread. */
    private static void seen(RecordedEvent event, Threshold log) {
        Duration duration = event.getDuration();
        PINS.incrementAndGet();
        LONGEST_NANOS.accumulate(duration.toNanos());
        if (log.reachedBy(duration)) {
            LOGGER.log(System.Logger.Level.WARNING, () -> line(event, duration));
        }
    }

    /** {@code pinned 101.3 ms: Frame.method(line) < Frame.method(line) < ...}, the innermost frame first. */
    static String line(RecordedEvent event, Duration duration) {
        List<RecordedFrame> frames = event.getStackTrace() == null ? List.of() : event.getStackTrace().getFrames();
        String top = frames.stream()
                .filter(f -> !machinery(f.getMethod().getType().getName()))
                .limit(TOP_FRAMES)
                .map(f -> f.getMethod().getType().getName() + "." + f.getMethod().getName()
                        + "(" + f.getLineNumber() + ")")
                .collect(Collectors.joining(" < "));
        return String.format(Locale.ROOT, "pinned %.1f ms: %s", duration.toNanos() / 1e6,
                top.isEmpty() ? "(no stack)" : top);
    }

    /**
     * The JDK's own park machinery and the method-handle frames of an upcall, the same in every pin's stack; the
     * frames between them say who pinned.
     */
    private static boolean machinery(String type) {
        return type.startsWith("java.lang.VirtualThread") || type.startsWith("jdk.internal.")
                || type.startsWith("java.lang.invoke.");
    }
}
