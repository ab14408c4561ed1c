package dev.loanruntime.serve;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.helidon.config.Config;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import dev.loanruntime.cli.SettingsDefaults;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.runtime.ThreadModel;
import dev.loanruntime.stages.Recording;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ServeOptionsTest {
    @Test
    void theCommandLineWithNothingSetGivesThePreset() {
        ServeArgs args = new ServeArgs();
        CommandLine cli = new CommandLine(new Object() {
            @CommandLine.Mixin
            ServeArgs mixin = args;
        }).setDefaultValueProvider(new SettingsDefaults(Map.of(), Config.create()));
        cli.parseArgs();

        assertThat(fields(args.toOptions(cli)), is(fields(ServeOptions.defaults())));
    }

    @Test
    void toBuilderChangesOnlyWhatIsSet() {
        ServeOptions preset = ServeOptions.defaults();
        ServeOptions changed = preset.toBuilder().threads(ThreadModel.PLATFORM).port(0).build();

        List<Object> expected = fields(preset);
        expected.set(1, 0);
        expected.set(2, ThreadModel.PLATFORM);
        assertThat(fields(changed), is(expected));
    }

    @Test
    void settersNameTheOptionAndTheBadValue() {
        var builder = ServeOptions.defaults().toBuilder();

        assertThat(assertThrows(IllegalArgumentException.class, () -> builder.port(70_000)).getMessage(),
                is("Invalid value for option '--port': expected an integer from 0 to 65535 but was '70000'"));
        assertThat(assertThrows(IllegalArgumentException.class, () -> builder.host(" ")).getMessage(),
                is("Invalid value for option '--host': expected a host name or address but was ' '"));
        assertThat(assertThrows(IllegalArgumentException.class,
                        () -> builder.memberCost(ScryptCost.parse("131072,8,1"))).getMessage(),
                is("Invalid value for option '--member-cost': expected at most the lesson's memory "
                        + "(128 * r * N <= 64 MiB) and p <= 64 but was '131072,8,1'"));
        assertThat(assertThrows(IllegalArgumentException.class,
                        () -> builder.sessionTtl(Duration.ofDays(2))).getMessage(),
                is("Invalid value for option '--session-ttl': expected an integer from 1 to 86400 but was '172800'"));
        assertThat(assertThrows(IllegalArgumentException.class,
                        () -> builder.drainDelay(Duration.ofMinutes(11))).getMessage(),
                is("Invalid value for option '--drain-delay': expected an integer from 0 to 600 but was '660'"));
    }

    @Test
    void storeReplicasDefaultToOneBehindSentinelAndMustBeZeroWithoutRedis() {
        assertThat(parse().storeReplicas(), is(0));
        assertThat(parse("--store", "redis://h:1").storeReplicas(), is(0));
        assertThat(parse("--store", "redis-sentinel://h:1/m").storeReplicas(), is(1));
        assertThat(parse("--store", "redis-sentinel://h:1/m", "--store-replicas", "0").storeReplicas(), is(0));
        assertThat(parse("--store", "redis://h:1", "--store-replicas", "2").storeReplicas(), is(2));
        assertThat(parse("--store", "redis://h:1", "--store-replicas", "2").asWorker(1).storeReplicas(), is(2));

        assertThat(assertThrows(CommandLine.ParameterException.class,
                        () -> parse("--store", "redis://h:1", "--store-replicas", "-1")).getMessage(),
                is("Invalid value for option '--store-replicas': expected an integer from 0 to 16 but was '-1'"));
        assertThat(assertThrows(CommandLine.ParameterException.class,
                        () -> parse("--store-replicas", "1")).getMessage(),
                is("Invalid value for option '--store-replicas': expected 0 with --store local (only a Redis store "
                        + "has replicas) but was '1'"));
    }

    @Test
    void thePinWatchIsOnUnlessTurnedOffAndLoggingPinsNeedsIt() {
        assertThat(parse().pinWatch(), is(Recording.ON));
        assertThat(parse("--pin-watch", "off").pinWatch(), is(Recording.OFF));
        assertThat(parse("--pin-watch", "off").asWorker(1).pinWatch(), is(Recording.OFF));
        assertThat(assertThrows(CommandLine.ParameterException.class,
                        () -> parse("--pin-watch", "off", "--log-pinned", "20ms")).getMessage(),
                is("Invalid value for option '--log-pinned': expected off unless --pin-watch on (its lines are the "
                        + "pins it sees) but was '20ms'"));
    }

    private static ServeOptions parse(String... line) {
        ServeArgs args = new ServeArgs();
        CommandLine cli = new CommandLine(new Object() {
            @CommandLine.Mixin
            ServeArgs mixin = args;
        }).setDefaultValueProvider(new SettingsDefaults(Map.of(), Config.create()));
        cli.parseArgs(line);
        return args.toOptions(cli);
    }

    private static List<Object> fields(ServeOptions o) {
        return new ArrayList<>(List.<Object>of(o.host(), o.port(), o.threads(), o.platformThreads(), o.carriers(),
                o.cryptoThreads(), o.cryptoQueue(), o.maxDerivations(), o.store().toString(), o.memberCost().label(),
                o.sessionTtl(), o.workerId(), o.scrypt(), o.serverTiming(), o.stages(), o.logPinned(),
                o.storeReplicas(), o.drainDelay(), o.logSlowRequests(), o.pinWatch()));
    }
}
