package dev.loanruntime.cli;

import java.util.Locale;
import java.util.Map;

import io.helidon.config.Config;

import picocli.CommandLine;

/**
 * Where an option not given on the command line takes its value from: the environment ({@code --crypto-threads}
 * is {@code LOAN_CRYPTO_THREADS}), then {@code application.yaml} ({@code loan.crypto-threads}), then the option's
 * own default; the commands that start no server ({@link ServerCommand}) take only their own ({@code loan.derive.*},
 * {@code LOAN_DERIVE_*}).
 * picocli converts and validates the value the same way whatever its source.
 */
public final class SettingsDefaults implements CommandLine.IDefaultValueProvider {
    private final Map<String, String> env;
    private final Config config;

    public SettingsDefaults() {
        this(System.getenv(), Config.create());
    }

    public SettingsDefaults(Map<String, String> env, Config config) {
        this.env = env;
        this.config = config;
    }

    @Override
    public String defaultValue(CommandLine.Model.ArgSpec argSpec) {
        if (!(argSpec instanceof CommandLine.Model.OptionSpec option) || !option.longestName().startsWith("--")) {
            return null;
        }
        String key = option.longestName().substring(2);
        // A command may give an option its own default first: `cluster` listens on loan.cluster.port (8431),
        // LOAN_CLUSTER_PORT, not on serve's port.
        String command = option.command() == null ? null : option.command().name();
        if (command != null && !command.equals("serve")) {
            String scoped = lookup(command + "-" + key, config.get("loan").get(command).get(key));
            if (scoped != null) {
                return scoped;
            }
        }
        if (!(option.command() != null && option.command().userObject() instanceof ServerCommand)) {
            // loan.threads is the server's thread model; derive's --threads is a pool size
            return option.defaultValue();
        }
        String general = lookup(key, config.get("loan").get(key));
        return general != null ? general : option.defaultValue();
    }

    private String lookup(String envKey, Config node) {
        String fromEnv = env.get(envName(envKey));
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.trim();
        }
        return node.asString().orElse(null);
    }

    /** {@code crypto-threads} is read from {@code LOAN_CRYPTO_THREADS}. */
    static String envName(String key) {
        return "LOAN_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /** The configuration the server itself reads (its {@code server} section). */
    public Config config() {
        return config;
    }
}
