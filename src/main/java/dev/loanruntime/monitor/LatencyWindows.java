package dev.loanruntime.monitor;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Latencies in one-second windows: recorded from any thread, wait-free and without allocating, and summarised since
 * the start and over the last {@value #WINDOWS} windows. Whoever owns it calls {@link #roll()} once a window, on one
 * thread; the summaries it publishes then are what {@link #figures()} returns, safe from any thread and never
 * blocking. So the figures lag the clock by up to one window, and by as long as the rolling thread itself was kept
 * from running.
 */
public final class LatencyWindows {
    /** The length of one window. */
    public static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The windows that "the last 10 s" holds. */
    public static final int WINDOWS = 10;
    /** One microsecond: finer than any timer this measures. */
    private static final long LOWEST = 1_000;
    /** An hour: a longer value is recorded as an hour. */
    private static final long HIGHEST = TimeUnit.HOURS.toNanos(1);
    /** Two significant digits: a percentile within 1% of its value. */
    private static final int DIGITS = 2;

    private final Recorder recorder = new Recorder(LOWEST, HIGHEST, DIGITS);
    private final Histogram sinceStart = histogram();
    private final ArrayDeque<Histogram> last = new ArrayDeque<>(WINDOWS + 1);
    private final Histogram sum = histogram();
    private Histogram spare;
    private volatile Figures figures = new Figures(Summary.EMPTY, Summary.EMPTY, Summary.EMPTY);

    /** Records one latency. Any thread; wait-free. */
    public void record(long nanos) {
        recorder.recordValue(clamp(nanos));
    }

    /**
     * Records one lateness of a sample taken every {@code intervalNanos}, and one more for each sample that a stall
     * swallowed: a probe that wakes 1 s late at a 10 ms interval records 1000, 990, 980 ... 10 ms (HdrHistogram's
     * correction for coordinated omission), as if it had gone on sampling through the stall. Any thread; wait-free.
     */
    public void recordLateness(long nanos, long intervalNanos) {
        recorder.recordValueWithExpectedInterval(clamp(nanos), intervalNanos);
    }

    /**
     * Ends the current window and publishes the summaries. On the owner's one thread (the {@link WindowClock}'s); its
     * histograms are reused after the first windows, only the published summaries are new.
     */
    public void roll() {
        Histogram window = recorder.getIntervalHistogram(spare);
        spare = null;
        sinceStart.add(window);
        last.addLast(window);
        if (last.size() > WINDOWS) {
            spare = last.removeFirst();
        }
        sum.reset();
        last.forEach(sum::add);
        figures = new Figures(Summary.of(sinceStart), Summary.of(sum), Summary.of(window));
    }

    /** What the last {@link #roll()} published. Any thread. */
    public Figures figures() {
        return figures;
    }

    private static long clamp(long nanos) {
        return Math.min(Math.max(nanos, 0), HIGHEST);
    }

    private static Histogram histogram() {
        return new Histogram(LOWEST, HIGHEST, DIGITS);
    }

    /**
     * The summaries of one rolled window.
     *
     * @param sinceStart every value so far
     * @param last10s    the last {@value #WINDOWS} windows
     * @param lastWindow the window that just ended
     */
    public record Figures(Summary sinceStart, Summary last10s, Summary lastWindow) {
    }

    /**
     * The values of a span of time: how many, their mean, median, 99th percentile and largest, in milliseconds; the
     * figures are null when there are none (not 0: nothing measured is not "no delay").
     */
    public record Summary(long count, Double meanMs, Double p50Ms, Double p99Ms, Double maxMs) {
        static final Summary EMPTY = new Summary(0, null, null, null, null);

        static Summary of(Histogram h) {
            if (h.getTotalCount() == 0) {
                return EMPTY;
            }
            return new Summary(h.getTotalCount(), ms(Math.round(h.getMean())), ms(h.getValueAtPercentile(50)),
                    ms(h.getValueAtPercentile(99)), ms(h.getMaxValue()));
        }

        /** A figure in seconds, for a gauge: NaN when there is none. */
        public static double seconds(Double ms) {
            return ms == null ? Double.NaN : Math.round(ms * 1000) / 1e6;
        }

        /** Nanoseconds in milliseconds, to the microsecond. */
        private static double ms(long nanos) {
            return Math.round(nanos / 1000.0) / 1000.0;
        }
    }
}
