package dev.loanruntime.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations on the command line: {@code 500ms}, {@code 10s}, {@code 2m}. */
public final class Durations {
    private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s|m)");

    private Durations() {
    }

    /** Parses {@code 500ms}, {@code 10s} or {@code 2m}; the error names the bad value and the accepted forms. */
    public static Duration parse(String value) {
        Matcher m = FORM.matcher(value == null ? "" : value.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("expected a duration such as 500ms, 10s or 2m but was '" + value + "'");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            default -> Duration.ofMinutes(n);
        };
    }

    /** The form {@link #parse} reads back, in the largest unit that keeps it whole: {@code 10s}, {@code 1500ms}. */
    public static String format(Duration duration) {
        long millis = duration.toMillis();
        return millis % 60_000 == 0 && millis > 0 ? millis / 60_000 + "m"
                : millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
