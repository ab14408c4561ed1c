package dev.loanruntime;

import java.util.Map;

import io.helidon.config.Config;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import dev.loanruntime.cli.SettingsDefaults;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;



class ClusterDefaultsTest {
    private static Object value(Map<String, String> env, String command, String option, String... args) {
        CommandLine cli = Main.commandLine().setDefaultValueProvider(new SettingsDefaults(env, Config.create()));
        cli.parseArgs(args);
        return cli.getSubcommands().get(command).getCommandSpec().findOption(option).getValue();
    }

    @Test
    void theClusterListensOn8431WhileServeKeeps8430() {
        assertThat(value(Map.of(), "cluster", "--port", "cluster"), is(8431));
        assertThat(value(Map.of(), "cluster", "--workers", "cluster"), is(3));
        assertThat(value(Map.of(), "serve", "--port", "serve"), is(8430));
    }

    @Test
    void theClustersOwnEnvironmentVariableWinsOverItsDefault() {
        Map<String, String> env = Map.of("LOAN_CLUSTER_PORT", "9001", "LOAN_PORT", "9002");

        assertThat(value(env, "cluster", "--port", "cluster"), is(9001));
        assertThat(value(env, "serve", "--port", "serve"), is(9002));
    }

    @Test
    void serveOptionsReachTheClusterFromTheSharedSettings() {
        assertThat(value(Map.of("LOAN_CRYPTO_THREADS", "7"), "cluster", "--crypto-threads", "cluster"), is(7));
    }
}
