package dev.loanruntime.serve;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.Option;

import dev.loanruntime.cli.OptionFields;
import dev.loanruntime.cli.Converters;
import dev.loanruntime.cli.Range;
import dev.loanruntime.settings.Switch;
import dev.loanruntime.testing.ServeLine;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ServeOptionsTest {
    /** Values that parse accepts, by type; a new option of a new type needs its samples here, or the test says so. */
    private static final Map<Class<?>, List<String>> SAMPLES = Map.of(
            String.class, List.of("127.0.0.1", "localhost", "::1", "0.0.0.0"),
            dev.loanruntime.store.StoreUri.class, List.of("local", "sqlite:/tmp/loans.db", "redis://127.0.0.1:6379/2",
                    "redis-sentinel://127.0.0.1:26379,127.0.0.2:26379/loans",
                    // three of seven: --store-pool and --store-pool-timeout take a PostgreSQL store
                    "postgresql://app@127.0.0.1:5432/loans", "postgresql://127.0.0.2:6543/a_b", "postgresql://db:1/x"),
            dev.loanruntime.crypto.ScryptCost.class, List.of("65536,8,8", "1024,8,1", "16384,8,2", "2,1,1"),
            dev.loanruntime.settings.Threshold.class, List.of("off", "20ms", "2s", "1500ms"),
            dev.loanruntime.overload.ConcurrencyLimit.class, List.of("none", "aimd", "fixed:4:0", "fixed:1:10"),
            java.time.Duration.class, List.of("10s", "500ms", "2m", "1s"),
            java.util.OptionalInt.class, List.of("off", "0", "8439", "65535"));
    private static final int SETS = 300;

    @Test
    void aDurationOutsideItsRangeIsNamedWithItsRangeAsDurations() {
        java.time.Duration ms = java.time.Duration.ofMillis(1);
        java.time.Duration s = java.time.Duration.ofSeconds(1);
        dev.loanruntime.cli.UsageError.check("--every", java.time.Duration.ofMillis(500), ms, s);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> dev.loanruntime.cli.UsageError.check("--every", java.time.Duration.ofSeconds(2), ms, s));
        assertThat(e.getMessage(), is("Invalid value for option '--every': expected a duration from 1ms to 1s but was '2s'"));
    }

    @Test
    void aWorkersOptionsKeepAStorePasswordThatTheStoresTextLeavesOut() {
        ServeOptions options = ServeOptions.parse("--store", "redis://:s3cret@127.0.0.1:6379");
        assertThat(options.storage().store().toString(), not(org.hamcrest.Matchers.containsString("s3cret")));
        assertThat(options.asWorker(2).storage().store().environment().values(), org.hamcrest.Matchers.hasItem("s3cret"));
        assertThat(options.with("--port", "0").storage().store().environment(), is(options.storage().store().environment()));
    }

    @Test
    void theCommandLineWithNothingSetGivesThePreset() {
        assertThat(ServeLine.parse(Map.of()), is(ServeOptions.defaults()));
    }

    @Test
    void everyOptionSetSurvivesTheWorkersCommandLine() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Map<String, String> defaults = pairs(ServeOptions.defaults().toArgs());
        TreeSet<String> changed = new TreeSet<>();
        int sets = 0;
        for (int tries = 0; sets < SETS && tries < 20 * SETS; tries++) {
            List<String> args = randomArgs(random);
            ServeOptions options;
            try {
                options = ServeOptions.parse(args.toArray(String[]::new));
            } catch (IllegalArgumentException rejected) {
                continue; // a rule between options, such as --log-pinned without --pin-watch on
            }
            ServeOptions again = ServeOptions.parse(options.toArgs().toArray(String[]::new));
            assertThat("seed " + seed + ": " + args, again, is(options));
            pairs(options.toArgs()).forEach((name, value) -> {
                if (!value.equals(defaults.get(name))) {
                    changed.add(name);
                }
            });
            sets++;
        }
        assertThat("option sets that parse accepted (seed " + seed + ")", sets, is(SETS));
        assertThat("options that never left their default (seed " + seed + ")", optionNames().stream()
                .filter(name -> !changed.contains(name)).toList(), empty());
    }

    @Test
    void withChangesOnlyWhatItNames() {
        ServeOptions preset = ServeOptions.defaults();
        ServeOptions changed = preset.with("--threads", "platform", "--port", "0");

        Map<String, String> expected = pairs(preset.toArgs());
        expected.put("--threads", "platform");
        expected.put("--port", "0");
        assertThat(pairs(changed.toArgs()), is(expected));
        assertThat(changed.asWorker(3).with("--stages", "on").workerId(), is(3));
        assertThat(changed, is(not(preset)));
    }

    @Test
    void aBadValueNamesTheOptionAndTheValue() {
        assertThat(error("--port", "70000"),
                is("Invalid value for option '--port': expected an integer from 0 to 65535 but was '70000'"));
        assertThat(error("--host", " "),
                is("Invalid value for option '--host': expected a host name or address but was ' '"));
        assertThat(error("--member-cost", "131072,8,1"),
                is("Invalid value for option '--member-cost': expected at most the lesson's memory "
                        + "(128 * r * N <= 64 MiB) and p <= 64 but was '131072,8,1'"));
        assertThat(error("--session-ttl", "172800"),
                is("Invalid value for option '--session-ttl': expected an integer from 1 to 86400 but was '172800'"));
        assertThat(error("--drain-delay", "11m"),
                is("Invalid value for option '--drain-delay': expected a duration from 0s to 10m but was '11m'"));
        assertThat(error("--request-head-timeout", "0s"),
                is("Invalid value for option '--request-head-timeout': expected a duration above 0 but was '0s'"));
        assertThat(error("--crypto-threads", "0"),
                is("Invalid value for option '--crypto-threads': expected an integer from 1 to 256 but was '0'"));
    }

    @Test
    void storeReplicasDefaultToOneBehindSentinelAndMustBeZeroWithoutRedis() {
        assertThat(ServeOptions.parse().storage().storeReplicas(), is(0));
        assertThat(ServeOptions.parse("--store", "redis://h:1").storage().storeReplicas(), is(0));
        assertThat(ServeOptions.parse("--store", "redis-sentinel://h:1/m").storage().storeReplicas(), is(1));
        assertThat(ServeOptions.defaults().with("--store", "redis-sentinel://h:1/m").storage().storeReplicas(), is(1));
        assertThat(ServeOptions.parse("--store", "redis-sentinel://h:1/m", "--store-replicas", "0").storage().storeReplicas(),
                is(0));
        assertThat(ServeOptions.parse("--store", "redis://h:1", "--store-replicas", "2").asWorker(1).storage().storeReplicas(),
                is(2));

        assertThat(error("--store", "redis://h:1", "--store-replicas", "-1"),
                is("Invalid value for option '--store-replicas': expected an integer from 0 to 16 but was '-1'"));
        assertThat(error("--store-replicas", "1"),
                is("Invalid value for option '--store-replicas': expected 0 with --store local (only a Redis store "
                        + "has replicas) but was '1'"));
    }

    @Test
    void thePinWatchIsOnUnlessTurnedOffAndLoggingPinsNeedsIt() {
        assertThat(ServeOptions.parse().observation().pinWatch(), is(Switch.ON));
        assertThat(ServeOptions.parse("--pin-watch", "off").asWorker(1).observation().pinWatch(), is(Switch.OFF));
        assertThat(error("--pin-watch", "off", "--log-pinned", "20ms"),
                is("Invalid value for option '--log-pinned': expected off unless --pin-watch on (its lines are the "
                        + "pins it sees) but was '20ms'"));
    }

    @Test
    void docsOptionsHasARowPerOptionWithItsDefault() throws IOException {
        String doc = Files.readString(Path.of("docs", "options.md"));
        Map<String, String> rows = new LinkedHashMap<>();
        Matcher row = Pattern.compile("(?m)^\\| `(--[a-z0-9-]+)` \\| ([^|]+) \\|").matcher(doc);
        while (row.find()) {
            rows.put(row.group(1), row.group(2).strip());
        }
        List<String> problems = new ArrayList<>();
        for (Field field : optionFields()) {
            Option option = field.getAnnotation(Option.class);
            String name = option.names()[0];
            if (!rows.containsKey(name)) {
                problems.add(name + ": no row");
            } else if (!option.defaultValue().equals("__no_default_value__") && !rows.get(name).equals(option.defaultValue())) {
                problems.add(name + ": the row says " + rows.get(name) + ", the option " + option.defaultValue());
            }
        }
        rows.keySet().stream().filter(name -> !optionNames().contains(name)).forEach(name -> problems.add(name
                + ": a row, but no such option"));
        assertThat("docs/options.md against ServeOptions", problems, empty());
    }

    /** Every option, each with a value of its type or (one time in five) left out. */
    private static List<String> randomArgs(Random random) {
        List<String> args = new ArrayList<>();
        for (Field field : optionFields()) {
            // an option without a default (the store's own pool, replicas) is left out as often as given: most of
            // them are refused beside most stores
            boolean defaulted = !field.getAnnotation(Option.class).defaultValue().equals("__no_default_value__");
            if (random.nextInt(defaulted ? 5 : 2) == 0) {
                continue;
            }
            args.add(field.getAnnotation(Option.class).names()[0]);
            args.add(randomValue(field, random));
        }
        return args;
    }

    private static String randomValue(Field field, Random random) {
        Class<?> type = field.getType();
        Range range = field.getAnnotation(Range.class);
        if (range != null) {
            long value = range.min() + (long) (random.nextDouble() * (range.max() - range.min() + 1));
            return type == java.time.Duration.class ? value + "ms" : Long.toString(value);
        }
        if (type.isEnum()) {
            Object[] constants = type.getEnumConstants();
            return format(field, constants[random.nextInt(constants.length)]);
        }
        List<String> samples = SAMPLES.get(type);
        if (samples == null) {
            throw new AssertionError("no sample values for " + type.getName() + " (option "
                    + field.getAnnotation(Option.class).names()[0] + "): add some to SAMPLES");
        }
        return samples.get(random.nextInt(samples.size()));
    }

    @SuppressWarnings("unchecked")
    private static String format(Field field, Object value) {
        try {
            return ((Converters.Format<Object>) field.getAnnotation(Option.class).converter()[0]
                    .getDeclaredConstructor().newInstance()).format(value);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static List<Field> optionFields() {
        return OptionFields.fields(ServeOptions.class);
    }

    private static List<String> optionNames() {
        return optionFields().stream().map(f -> f.getAnnotation(Option.class).names()[0]).toList();
    }

    /** {@code --a 1 --b 2} as {--a=1, --b=2}, in order. */
    private static Map<String, String> pairs(List<String> args) {
        Map<String, String> pairs = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.size(); i += 2) {
            pairs.put(args.get(i), args.get(i + 1));
        }
        return pairs;
    }

    private static String error(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> ServeOptions.parse(args)).getMessage();
    }
}
