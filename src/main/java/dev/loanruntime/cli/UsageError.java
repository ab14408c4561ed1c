package dev.loanruntime.cli;

import java.io.PrintWriter;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import picocli.CommandLine;

/**
 * The one form of a usage error, whichever command has the option: {@code Invalid value for option '--port':
 * expected an integer from 0 to 65535 but was '70000'}. Value types and commands throw the
 * {@link IllegalArgumentException}s built here; {@link #orUsage} turns them into picocli's usage error, which
 * {@link #handle} prints as that one line before the command exits with status 2. Runs on the caller's thread.
 */
public final class UsageError {
    /** The option a message names: {@code option '--NAME'}. */
    private static final Pattern OPTION = Pattern.compile("option '(--[a-z0-9-]+)'");
    /** The bad value at the end of a message: {@code but was 'VALUE'}. */
    private static final Pattern BUT_WAS = Pattern.compile(" but was '([^']*)'$");
    /** The exit status of every usage error. */
    public static final int STATUS = 2;

    private UsageError() {
    }

    /** {@code Invalid value for option '<option>': expected <expected> but was '<value>'}. */
    public static IllegalArgumentException invalid(String option, String expected, Object value) {
        return invalid(option, "expected " + expected + " but was '" + value + "'");
    }

    /** {@code Invalid value for option '<option>': <detail>}, for a detail that is more than what was expected. */
    public static IllegalArgumentException invalid(String option, String detail) {
        return new IllegalArgumentException("Invalid value for option '" + option + "': " + detail);
    }

    /**
     * Checks that {@code value} of {@code option} lies in [{@code min}, {@code max}].
     *
     * @throws IllegalArgumentException naming the option, the range and the bad value
     */
    public static void check(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw invalid(option, "an integer from " + min + " to " + max, value);
        }
    }

    /**
     * Checks every {@link Range} field of {@code options}, an object that picocli filled in, in the order they are
     * declared, as {@link #check} does with the option's first name.
     *
     * @throws IllegalArgumentException naming the first option out of its range, the range and the bad value
     */
    public static void checkRanges(Object options) {
        for (Field field : options.getClass().getDeclaredFields()) {
            Range range = field.getAnnotation(Range.class);
            if (range == null) {
                continue;
            }
            String name = field.getAnnotation(CommandLine.Option.class).names()[0];
            Object value = OptionFields.get(field, options);
            if (value instanceof Number n) {
                check(name, n.longValue(), range.min(), range.max());
            } else if (value instanceof Duration d) {
                check(name, d, Duration.ofMillis(range.min()), Duration.ofMillis(range.max()));
            }
        }
    }

    /**
     * Checks that {@code value} of {@code option} lies in [{@code min}, {@code max}].
     *
     * @throws IllegalArgumentException naming the option, the range and the bad value, as durations
     */
    public static void check(String option, Duration value, Duration min, Duration max) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw invalid(option, "a duration from " + Durations.format(min) + " to " + Durations.format(max),
                    Durations.format(value));
        }
    }

    /** Runs {@code checks}; an {@link IllegalArgumentException} from them becomes a usage error of {@code command}. */
    public static <T> T orUsage(CommandLine command, Supplier<T> checks) {
        try {
            return checks.get();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(command, e.getMessage());
        }
    }

    /** {@link #orUsage(CommandLine, Supplier)} for checks that return nothing. */
    public static void orUsage(CommandLine command, Runnable checks) {
        orUsage(command, () -> {
            checks.run();
            return null;
        });
    }

    /**
     * {@code unknown command 'serv' (did you mean serve?)}, or with no command close to {@code typed} (at most two
     * letters added, dropped or changed), {@code unknown command 'x' (commands: serve, cluster, ...)}.
     */
    public static String unknownCommand(String typed, Collection<String> commands) {
        List<String> close = commands.stream().filter(c -> distance(typed, c) <= 2).toList();
        return "unknown command '" + typed + "' ("
                + (close.isEmpty() ? "commands: " + String.join(", ", commands)
                        : "did you mean " + String.join(" or ", close) + "?")
                + ")";
    }

    /**
     * The error's message, rewritten once for the option it names: typed on the command line, the bad value as typed
     * (a range check reads the converted value back, so {@code 0ms} would read {@code 0s}); set elsewhere, where
     * ({@code option '--carriers' (set by LOAN_CARRIERS): ...}).
     */
    private static String described(CommandLine.ParameterException e, String[] args,
            Function<String, Optional<String>> sourceOf) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        Matcher m = OPTION.matcher(message);
        if (!m.find()) {
            return message;
        }
        String option = m.group(1);
        boolean typed = Arrays.stream(args).anyMatch(a -> a.equals(option) || a.startsWith(option + "="));
        if (!typed) {
            String named = message.substring(0, m.end());
            String rest = message.substring(m.end());
            return sourceOf.apply(option).map(source -> named + " (set by " + source + ")" + rest).orElse(message);
        }
        Matcher value = BUT_WAS.matcher(message);
        CommandLine.ParseResult parsed = e.getCommandLine().getParseResult();
        CommandLine.Model.OptionSpec spec = parsed == null ? null : parsed.matchedOption(option);
        List<String> original = spec == null ? List.of() : spec.originalStringValues();
        if (!value.find() || original.isEmpty()) {
            return message;
        }
        String asTyped = original.get(original.size() - 1);
        return message.substring(0, value.start(1)) + asTyped + message.substring(value.end(1));
    }

    /** Levenshtein distance: the fewest letters added, dropped or changed to turn {@code a} into {@code b}. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int change = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(change, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /** {@link #handle(CommandLine.ParameterException, String[], Function)} where no option is set elsewhere. */
    public static int handle(CommandLine.ParameterException e, String[] args) {
        return handle(e, args, option -> Optional.empty());
    }

    /**
     * picocli's parameter-exception handler: the message alone, one line on the command's error stream, status 2; a
     * mistyped option gets the options it may have meant on the same line, and a bad value that was not typed says
     * where it was set ({@code sourceOf}, e.g. {@link SettingsDefaults#sourceOf}).
     */
    public static int handle(CommandLine.ParameterException e, String[] args,
            Function<String, Optional<String>> sourceOf) {
        PrintWriter err = e.getCommandLine().getErr();
        String suggestion = "";
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getSuggestions().isEmpty()
                && !unmatched.getUnmatched().isEmpty()) {
            // picocli offers the options that begin as the typed one does, in declaration order: the closest first
            String typed = unmatched.getUnmatched().get(0);
            suggestion = " (did you mean " + String.join(" or ", unmatched.getSuggestions().stream()
                    .sorted(Comparator.comparingInt(s -> distance(typed, s))).limit(3).toList()) + "?)";
        }
        err.println(described(e, args, sourceOf) + suggestion);
        err.flush();
        return STATUS;
    }
}
