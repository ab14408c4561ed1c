package dev.loanruntime.measure;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import picocli.CommandLine;

import dev.loanruntime.cli.Converters;

/** Durations on the command line: {@code 500ms}, {@code 10s}, {@code 2m}. */
final class Durations {
    private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s|m)");

    private Durations() {
    }

    static Duration parse(String value) {
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

    static final class Converter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return Converters.parsed(Durations::parse, value);
        }
    }
}
