package dev.loanruntime.runtime;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code serve --log-pinned off|DURATION}: whether a pinned virtual thread is logged, one line per pin that lasted at
 * least {@code threshold}. Pins are counted either way ({@link Pinning}); only the log line is optional, because a
 * server that pins by design (experiment 11) would otherwise write a line per request.
 *
 * @param on        whether pins are logged
 * @param threshold the shortest pin logged; zero when off
 */
public record PinLog(boolean on, Duration threshold) {
    /** No log lines. */
    public static final PinLog OFF = new PinLog(false, Duration.ZERO);
    private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s)");

    /** Parses {@code off}, {@code 20ms} or {@code 1s}; the error names the bad value and the accepted forms. */
    public static PinLog parse(String value) {
        if ("off".equals(value)) {
            return OFF;
        }
        Matcher m = FORM.matcher(value == null ? "" : value);
        if (!m.matches()) {
            throw new IllegalArgumentException("expected off or a duration such as 20ms or 1s but was '" + value + "'");
        }
        long n = Long.parseLong(m.group(1));
        return new PinLog(true, "ms".equals(m.group(2)) ? Duration.ofMillis(n) : Duration.ofSeconds(n));
    }

    /** Whether a pin of {@code duration} gets a log line. */
    public boolean logs(Duration duration) {
        return on && duration.compareTo(threshold) >= 0;
    }

    /** The form {@link #parse} reads back: {@code off} or the threshold in milliseconds, e.g. {@code 20ms}. */
    public String label() {
        return on ? threshold.toMillis() + "ms" : "off";
    }
}
