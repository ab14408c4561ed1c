package dev.loanruntime.settings;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An option of the form {@code off|DURATION}: whether something happens, and from what duration on.
 * {@code serve --log-pinned} logs a line for each virtual thread pinned to its carrier at least that long (counted by
 * {@code Pinning} either way, logged only when asked, because a server that pins by design, as in experiment 11,
 * would write a line per request); {@code serve --log-slow-requests} one for each request whose stages took at least
 * that long; {@code serve --shed-delay} sheds heavy requests while the carrier delay is over it.
 *
 * @param on        whether it happens at all
 * @param threshold the shortest duration it happens for; zero when off
 */
public record Threshold(boolean on, Duration threshold) {
    /** Never. */
    public static final Threshold OFF = new Threshold(false, Duration.ZERO);
    private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s)");

    /** Parses {@code off}, {@code 20ms} or {@code 1s}; the error names the bad value and the accepted forms. */
    public static Threshold parse(String value) {
        if ("off".equals(value)) {
            return OFF;
        }
        Matcher m = FORM.matcher(value == null ? "" : value);
        if (!m.matches()) {
            throw new IllegalArgumentException("expected off or a duration such as 20ms or 1s but was '" + value + "'");
        }
        long n = Long.parseLong(m.group(1));
        return new Threshold(true, "ms".equals(m.group(2)) ? Duration.ofMillis(n) : Duration.ofSeconds(n));
    }

    /** Whether an event of {@code duration} gets a log line. */
    public boolean reachedBy(Duration duration) {
        return on && duration.compareTo(threshold) >= 0;
    }

    /** The form {@link #parse} reads back: {@code off} or the threshold in milliseconds, e.g. {@code 20ms}. */
    public String label() {
        return on ? threshold.toMillis() + "ms" : "off";
    }
}
