package dev.loanruntime.runtime;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An option of the form {@code off|DURATION}: whether something is logged, one line per event that lasted at least
 * {@code threshold}. {@code serve --log-pinned} (a virtual thread pinned to its carrier; counted by {@link Pinning}
 * either way, logged only when asked, because a server that pins by design, as in experiment 11, would write a line
 * per request) and {@code serve --log-slow-requests} (a request's stages, when its total is over the threshold).
 *
 * @param on        whether anything is logged
 * @param threshold the shortest event logged; zero when off
 */
public record LogThreshold(boolean on, Duration threshold) {
    /** No log lines. */
    public static final LogThreshold OFF = new LogThreshold(false, Duration.ZERO);
    private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s)");

    /** Parses {@code off}, {@code 20ms} or {@code 1s}; the error names the bad value and the accepted forms. */
    public static LogThreshold parse(String value) {
        if ("off".equals(value)) {
            return OFF;
        }
        Matcher m = FORM.matcher(value == null ? "" : value);
        if (!m.matches()) {
            throw new IllegalArgumentException("expected off or a duration such as 20ms or 1s but was '" + value + "'");
        }
        long n = Long.parseLong(m.group(1));
        return new LogThreshold(true, "ms".equals(m.group(2)) ? Duration.ofMillis(n) : Duration.ofSeconds(n));
    }

    /** Whether an event of {@code duration} gets a log line. */
    public boolean logs(Duration duration) {
        return on && duration.compareTo(threshold) >= 0;
    }

    /** The form {@link #parse} reads back: {@code off} or the threshold in milliseconds, e.g. {@code 20ms}. */
    public String label() {
        return on ? threshold.toMillis() + "ms" : "off";
    }
}
