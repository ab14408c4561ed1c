package dev.loanruntime;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.helidon.config.Config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import dev.loanruntime.cli.SettingsDefaults;
import dev.loanruntime.testing.CliRun;
import dev.loanruntime.testing.ServeLine;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;


// In-process: an option check that stopped refusing would start a real server in the test JVM and wait for a
// signal. Parsing and refusing takes well under a second.
@Timeout(30)
@ResourceLock(Resources.SYSTEM_OUT)   // CliRun swaps System.out and System.err
@ResourceLock(Resources.SYSTEM_ERR)
class CommandLineTest {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
            "--threads|fast|expected one of virtual, platform but was 'fast'",
            "--carriers|0|expected an integer from 1 to 256 but was '0'",
            "--carriers|many|'many' is not an int",
            "--port|70000|expected an integer from 0 to 65535 but was '70000'",
            "--crypto-threads|0|expected an integer from 1 to 256 but was '0'",
            "--crypto-queue|-1|expected an integer from 0 to 100000 but was '-1'",
            "--platform-threads|0|expected an integer from 1 to 10000 but was '0'",
            "--max-derivations|5000|expected an integer from 0 to 1024 but was '5000'",
            "--scrypt|openssl|expected one of reuse, bouncycastle, conscrypt but was 'openssl'",
            "--server-timing|sometimes|expected one of on-request, always, off but was 'sometimes'",
            "--stages|yes|expected on or off but was 'yes'",
            "--log-pinned|20|expected off or a duration such as 20ms or 1s but was '20'",
            "--pin-watch|no|expected on or off but was 'no'",
            "--carrier-delay|sometimes|expected on or off but was 'sometimes'",
            "--limit|lifo|expected none, aimd or fixed:PERMITS[:QUEUE] (permits 1 to 10000, queue 0 to 100000) but was 'lifo'",
            "--limit|fixed:0|expected none, aimd or fixed:PERMITS[:QUEUE] (permits 1 to 10000, queue 0 to 100000) but was 'fixed:0'",
            "--shed-delay|soon|expected off or a duration such as 20ms or 1s but was 'soon'",
            "--store-pool|4|expected no value with --store local (only a PostgreSQL store has a connection pool) but was '4'",
            "--store-pool-timeout|2s|expected no value with --store local (only a PostgreSQL store has a connection pool) but was '2s'",
            "--shed-delay|0ms|expected off or a duration above 0 but was '0ms'",
            "--carrier-delay-resolution|0ms|expected a duration from 1ms to 1s but was '0ms'",
            "--carrier-delay-resolution|2s|expected a duration from 1ms to 1s but was '2s'",
            "--carrier-delay-resolution|often|expected a duration such as 500ms, 10s or 2m but was 'often'",
            "--log-slow-requests|500ms|expected off unless --stages on (its lines are the stages) but was '500ms'",
            "--log-slow-requests|slow|expected off or a duration such as 20ms or 1s but was 'slow'",
            "--drain-delay|-1|expected a duration such as 500ms, 10s or 2m but was '-1'",
            "--drain-delay|660|expected a duration from 0s to 10m but was '660'",
            "--drain-delay|soon|expected a duration such as 500ms, 10s or 2m but was 'soon'"})
    void badOptionValueExits2WithOneLineNamingIt(String option, String value, String expected) {
        for (String[] args : new String[][] {{"serve", option, value}, {option, value}}) {
            String line = CliRun.of(args).usageLine();
            assertThat(line, line.contains(option));
            assertThat(line, line.contains(expected));
        }
    }

    @Test
    void logPinnedWithoutTheWatchExits2NamingIt() {
        assertThat(CliRun.of("serve", "--pin-watch", "off", "--log-pinned", "20ms").usageLine(), is("Invalid value for option '--log-pinned': expected off unless --pin-watch on "
                + "(its lines are the pins it sees) but was '20ms'"));
    }

    @Test
    void shedDelayWithoutTheCarrierDelayExits2NamingIt() {
        assertThat(CliRun.of("serve", "--carrier-delay", "off", "--shed-delay", "50ms").usageLine(), is("Invalid value for option '--shed-delay': expected off unless --carrier-delay on "
                + "(it sheds on the carrier delay) but was '50ms'"));
    }

    @Test
    void aNegativeLoadRateExits2NamingIt() {
        String line = CliRun.of("load", "--url", "http://127.0.0.1:1", "--rate", "-1", "--requests", "1").usageLine();
        assertThat(line, line.contains("--rate") && line.contains("up to 1000000 (0: a closed loop)"));
    }

    @Test
    void unknownOptionExits2NamingIt() {
        CliRun r = CliRun.of("serve", "--carrier", "1");
        assertThat(r.code(), is(2));
        assertThat(r.err(), r.err().contains("--carrier"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "probe --round 3|--rounds",
            "serve --carrier 1|--carriers",
            "load --concurency 2|--concurrency"})
    void aMistypedOptionGetsASuggestionOnItsOneLine(String line, String suggested) {
        String err = CliRun.of(line.split(" ")).usageLine();
        assertThat(err, err.contains("(did you mean " + suggested));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "serv|unknown command 'serv' (did you mean serve?)",
            "prob --url http://127.0.0.1:1|unknown command 'prob' (did you mean probe?)",
            "clustre --workers 2|unknown command 'clustre' (did you mean cluster?)",
            "lod|unknown command 'lod' (did you mean load?)",
            "frobnicate|unknown command 'frobnicate' (commands: serve, cluster, probe, load, watch, chart, derive, docs,"
                    + " interval, attach, help)"})
    void aMistypedCommandExits2WithOneLineNamingItAndTheCommands(String line, String expected) {
        assertThat(CliRun.of(line.split(" ")).usageLine(), is(expected));
    }

    @Test
    void optionsFirstStillMeanServe() {
        CliRun r = CliRun.of("--carriers", "1", "--help");
        assertThat(r.err(), r.code(), is(0));
        assertThat(r.out(), r.out().contains("--drain-delay"));
    }

    @Test
    void aFileOfArgumentsFirstStillMeansServe(@TempDir Path dir) throws IOException {
        Path options = Files.writeString(dir.resolve("options"), "--carriers 1 --help");
        CliRun r = CliRun.of("@" + options);
        assertThat(r.err(), r.code(), is(0));
        assertThat(r.out(), r.out().contains("--drain-delay"));
    }

    @Test
    void helpListsEveryServeOptionAndExits0() {
        CliRun r = CliRun.of("serve", "--help");
        assertThat(r.code(), is(0));
        for (String option : new String[] {"--host", "--port", "--threads", "--platform-threads", "--carriers",
                "--crypto-threads", "--crypto-queue", "--max-derivations", "--server-timing", "--stages", "--log-pinned",
                "--pin-watch=on|off", "--log-slow-requests", "--drain-delay", "--store-replicas", "LOAN_"}) {
            assertThat(option + " missing from help:\n" + r.out(), r.out().contains(option));
        }
    }

    @Test
    void everyCommandPrintsTheVersionWithDashVAndVersion() {
        String version = CliRun.of("--version").out().strip();
        assertThat(version, version.startsWith("loan-runtime ") && version.contains(" on Java "));
        assertThat("the commit the build was made from: " + version,
                version.matches(".*, commit (unknown|[0-9a-f]{7,}(-dirty)?) .*"));
        List<String> checked = new ArrayList<>();
        printsVersion(Main.commandLine(), List.of(), version, checked);
        assertThat(checked.toString(), checked.containsAll(List.of("serve", "cluster", "probe", "load", "chart",
                "chart timeline", "derive")));
    }

    /** Every subcommand of {@code command} (reached by {@code path}) that offers --version, at any depth. */
    private static void printsVersion(picocli.CommandLine command, List<String> path, String version,
                                      List<String> checked) {
        for (var sub : command.getSubcommands().entrySet()) {
            List<String> args = new ArrayList<>(path);
            args.add(sub.getKey());
            String name = String.join(" ", args);
            if (sub.getValue().getCommandSpec().findOption("--version") == null) {
                assertThat(name + " has no --version; only help may lack it", sub.getKey(), is("help"));
                continue;
            }
            for (String option : new String[] {"-V", "--version"}) {
                List<String> withOption = new ArrayList<>(args);
                withOption.add(option);
                CliRun r = CliRun.of(withOption.toArray(String[]::new));
                assertThat(name + " " + option + ": " + r.err(), r.code(), is(0));
                assertThat(name + " " + option, r.out().strip(), is(version));
            }
            checked.add(name);
            printsVersion(sub.getValue(), args, version, checked);
        }
    }

    @Test
    void clusterHelpOffersItsOwnPortAndSaysZeroIsRefused() {
        CliRun help = CliRun.of("cluster", "--help");
        assertThat(help.err(), help.code(), is(0));
        String port = help.out().substring(help.out().indexOf("      --port=PORT"));
        port = port.substring(0, port.indexOf("\n      --", 1)).replaceAll("\\s+", " ");
        assertThat(port, port.contains("0 is refused"));
        assertThat(port, port.contains("default: 8431"));
        assertThat(port, !port.contains("any free port"));

        String zero = CliRun.of("cluster", "--port", "0").usageLine();
        assertThat(zero, zero.contains("'--port'") && zero.contains("but was '0'"));
    }

    @Test
    void topLevelHelpNamesServe() {
        CliRun r = CliRun.of("--help");
        assertThat(r.code(), is(0));
        assertThat(r.out(), r.out().contains("serve"));
    }

    @Test
    void aBadValueFromTheEnvironmentIsNamedByItsVariable() {
        SettingsDefaults env = new SettingsDefaults(Map.of("LOAN_CARRIERS", "0"), Config.create());
        StringWriter err = new StringWriter();
        assertThat(Main.run(new PrintWriter(new StringWriter()), new PrintWriter(err, true), env, "serve"), is(2));
        assertThat(err.toString(), err.toString().strip(), startsWith(
                "Invalid value for option '--carriers' (set by LOAN_CARRIERS): "));
        StringWriter typed = new StringWriter();
        assertThat(Main.run(new PrintWriter(new StringWriter()), new PrintWriter(typed, true), env, "serve",
                "--carriers", "0"), is(2));
        assertThat("typed on the command line: named as typed", typed.toString().strip(),
                startsWith("Invalid value for option '--carriers': "));
    }

    @Test
    void environmentOverridesTheDefaultAndTheCommandLineOverridesBoth() {
        var options = ServeLine.parse(java.util.Map.of("LOAN_CRYPTO_THREADS", "7", "LOAN_THREADS", "platform"),
                "--threads", "virtual");
        assertThat(options.crypto().cryptoThreads(), is(7));
        assertThat(options.execution().threads().label(), is("virtual"));
        assertThat(options.crypto().cryptoQueue(), is(64));  // the default
    }

    @Test
    void scryptProviderComesFromTheEnvironmentAndIsReuseOtherwise() {
        assertThat(optionsFrom(java.util.Map.of("LOAN_SCRYPT", "conscrypt")).crypto().scrypt().label(), is("conscrypt"));
        assertThat(optionsFrom(java.util.Map.of()).crypto().scrypt().label(), is("reuse"));
    }

    @Test
    void cryptoPoolHasOneThreadPerCoreByDefault() {
        assertThat(optionsFrom(java.util.Map.of()).crypto().cryptoThreads(), is(Runtime.getRuntime().availableProcessors()));
        assertThat(dev.loanruntime.serve.ServeOptions.defaults().crypto().cryptoThreads(), is(Runtime.getRuntime().availableProcessors()));
    }

    private static dev.loanruntime.serve.ServeOptions optionsFrom(java.util.Map<String, String> env) {
        return ServeLine.parse(env);
    }
}
