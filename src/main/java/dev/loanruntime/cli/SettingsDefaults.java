package dev.loanruntime.cli;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
    private static final Pattern OPTION = Pattern.compile("option '(--[a-z0-9-]+)'");
    private final Map<String, String> env;
    private final Config config;
    /** Each option that took its value from the environment or the configuration: where (read for errors only). */
    private final Map<String, String> sources = new ConcurrentHashMap<>();
    /** A command's own key ({@code cluster-port}) and the option it sets ({@code port}). */
    private final Map<String, String> scopedOption = new ConcurrentHashMap<>();

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
            scopedOption.put(command + "-" + key, key);
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
        String name = envName(envKey);
        String fromEnv = env.get(name);
        if (fromEnv != null && !fromEnv.isBlank()) {
            sources.put("--" + envKeyOption(envKey), name);
            return fromEnv.trim();
        }
        String fromConfig = node.asString().orElse(null);
        if (fromConfig != null) {
            sources.put("--" + envKeyOption(envKey), node.key().toString() + " in application.yaml");
        }
        return fromConfig;
    }

    /** {@code cluster-port} (a command's own setting) is the option {@code port}; {@code crypto-threads} is itself. */
    private String envKeyOption(String key) {
        return scopedOption.getOrDefault(key, key);
    }

    /**
     * {@code message}, a usage error, with the option it names followed by where its value was set when that was not
     * the command line ({@code args}): "Invalid value for option '--carriers' (set by LOAN_CARRIERS): ...".
     */
    public String explain(String message, String[] args) {
        if (message == null) {
            return null;
        }
        Matcher m = OPTION.matcher(message);
        if (!m.find()) {
            return message;
        }
        String option = m.group(1);
        boolean typed = Arrays.stream(args).anyMatch(a -> a.equals(option) || a.startsWith(option + "="));
        String source = sources.get(option);
        return typed || source == null ? message
                : message.substring(0, m.end()) + " (set by " + source + ")" + message.substring(m.end());
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
