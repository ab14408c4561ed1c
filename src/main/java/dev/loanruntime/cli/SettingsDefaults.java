package dev.loanruntime.cli;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

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
    private final CompletableFuture<Config> config;
    /** Each option that took its value from the environment or the configuration: where (read for errors only). */
    private final Map<String, String> sources = new ConcurrentHashMap<>();

    /**
     * The process's environment and {@code application.yaml}, read on a thread of its own: reading the configuration
     * and picocli's model of {@code serve} are each a visible part of a server's start (within the options step of
     * /runtime's startMs), and they overlap until picocli asks for the first default.
     */
    public SettingsDefaults() {
        this(System.getenv(), CompletableFuture.supplyAsync(Config::create,
                task -> Thread.ofPlatform().name("config-read").daemon().start(task)));
    }

    public SettingsDefaults(Map<String, String> env, Config config) {
        this(env, CompletableFuture.completedFuture(config));
    }

    private SettingsDefaults(Map<String, String> env, CompletableFuture<Config> config) {
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
            String scoped = lookup(option.longestName(), command + "-" + key,
                    config().get("loan").get(command).get(key));
            if (scoped != null) {
                return scoped;
            }
        }
        if (!(option.command() != null && option.command().userObject() instanceof ServerCommand)) {
            // loan.threads is the server's thread model; derive's --threads is a pool size
            return option.defaultValue();
        }
        String general = lookup(option.longestName(), key, config().get("loan").get(key));
        return general != null ? general : option.defaultValue();
    }

    /** {@code option}'s value from the variable named after {@code envKey}, else from {@code node}; null if neither. */
    private String lookup(String option, String envKey, Config node) {
        String name = envName(envKey);
        String fromEnv = env.get(name);
        if (fromEnv != null && !fromEnv.isBlank()) {
            sources.put(option, name);
            return fromEnv.trim();
        }
        String fromConfig = node.asString().orElse(null);
        if (fromConfig != null) {
            sources.put(option, node.key().toString() + " in application.yaml");
        }
        return fromConfig;
    }

    /** Where {@code option} ({@code --carriers}) took its value when not from the command line or its own default. */
    public Optional<String> sourceOf(String option) {
        return Optional.ofNullable(sources.get(option));
    }

    /** {@code crypto-threads} is read from {@code LOAN_CRYPTO_THREADS}. */
    static String envName(String key) {
        return "LOAN_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /** The configuration the server itself reads (its {@code server} section). */
    public Config config() {
        try {
            return config.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;    // as Config.create() would have thrown it on this thread
            }
            throw e;
        }
    }
}
