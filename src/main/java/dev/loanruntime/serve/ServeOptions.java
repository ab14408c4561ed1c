package dev.loanruntime.serve;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import picocli.CommandLine;
import picocli.CommandLine.Mixin;

import dev.loanruntime.cli.OptionFields;
import dev.loanruntime.cli.UsageError;

/**
 * Everything that decides how one server process runs, in sections: the listener ({@link ListenerOptions}), the
 * execution model ({@link ExecutionOptions}), the heavy work ({@link CryptoOptions}), the state
 * ({@link StorageOptions}), what the server measures of itself ({@link ObservationOptions}) and the overload
 * protections ({@link OverloadOptions}). Each option is defined once, in its section: its name, type, default, help
 * ({@code @Option}) and range ({@code Range}). From these follow {@code serve}'s and {@code cluster}'s command lines
 * (both mix this class in), the environment and application.yaml ({@code SettingsDefaults}), {@link #defaults()},
 * and a worker's command line ({@link #toArgs()}: {@code parse(o.toArgs())} equals {@code o}). docs/options.md has
 * a row per option; a test holds it to the options here.
 *
 * <p>Adding an option: a field with its {@code @Option} (and a {@code @Range} for a number) in its section, an
 * accessor, and its use. Values change only while picocli parses; once {@link #validated} they are fixed, and an
 * instance may be shared between threads that receive it the usual ways (a thread's start, an executor).
 */
public final class ServeOptions {
    @Mixin
    private ListenerOptions listener = new ListenerOptions();
    @Mixin
    private ExecutionOptions execution = new ExecutionOptions();
    @Mixin
    private CryptoOptions crypto = new CryptoOptions();
    @Mixin
    private StorageOptions storage = new StorageOptions();
    @Mixin
    private ObservationOptions observation = new ObservationOptions();
    @Mixin
    private OverloadOptions overload = new OverloadOptions();

    /** This process's id in a cluster (1..N), 0 when it serves alone: not an option, the primary gives it. */
    private int workerId;

    // Only picocli (through a mixin, with the reflection it uses for every command) and parse() make one.
    private ServeOptions() {
    }

    /**
     * The preset: the lesson's single machine on {@value Defaults#HOST}:{@value Defaults#PORT}, virtual threads,
     * one carrier and one crypto thread per core, process-local state, the lesson's member cost, half-hour sessions,
     * not a cluster worker. The options' own defaults only: neither the environment nor application.yaml.
     */
    public static ServeOptions defaults() {
        return parse();
    }

    /**
     * Options from a command line alone (no environment, no application.yaml); an option given twice takes the last.
     *
     * @throws IllegalArgumentException with picocli's usage message, e.g. {@code Invalid value for option '--port':
     *                                  expected an integer from 0 to 65535 but was '70000'}
     */
    public static ServeOptions parse(String... args) {
        ServeOptions options = new ServeOptions();
        CommandLine commandLine = new CommandLine(options).setOverwrittenOptionsAllowed(true);
        try {
            commandLine.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return options.validate();
    }

    /**
     * These options with {@code changes} applied, e.g. {@code with("--port", "0", "--threads", "platform")}: the
     * changes are parsed and checked together with the other values, and every option they do not name keeps its
     * value as it is, not as its text reads back (a store's text leaves its password out).
     */
    public ServeOptions with(String... changes) {
        List<String> args = new ArrayList<>(toArgs());
        args.addAll(List.of(changes));
        ServeOptions changed = parse(args.toArray(String[]::new));
        Set<String> named = Arrays.stream(changes).map(c -> c.split("=", 2)[0]).collect(Collectors.toSet());
        OptionFields.copyExcept(this, changed, named);
        changed.workerId = workerId;
        return changed;
    }

    /**
     * Every option with its value, in the form {@code parse} reads: {@code --host 127.0.0.1 --port 8430 ...}. An
     * option without a value ({@code --store-replicas} left to the store) is left out, so it gets the same default.
     */
    public List<String> toArgs() {
        return OptionFields.toArgs(this);
    }

    /** Checks the options that picocli filled in (a mixin of a command); an error is the command's usage error. */
    public ServeOptions validated(CommandLine commandLine) {
        return UsageError.orUsage(commandLine, this::validate);
    }

    /** The same options for worker {@code id} of a cluster. */
    public ServeOptions asWorker(int id) {
        UsageError.check("--worker-id", id, 0, 1024);
        if (id == workerId) {
            return this;    // fixed once validated: a copy would cost picocli a second model of every option
        }
        ServeOptions worker = with();
        worker.workerId = id;
        return worker;
    }

    /** The same options for a server of its own (no worker id) listening on {@code host}:{@code port}. */
    public ServeOptions alone(String host, int port) {
        return with("--host", host, "--port", Integer.toString(port)).asWorker(0);
    }

    /**
     * Whether the listener binds with {@code SO_REUSEPORT}. Only cluster workers do: they must share one port, while
     * a server started alone on a taken port should fail loudly instead of silently taking half of its traffic.
     */
    public boolean reusePort() {
        return workerId > 0;
    }

    public ListenerOptions listener() {
        return listener;
    }

    public ExecutionOptions execution() {
        return execution;
    }

    public CryptoOptions crypto() {
        return crypto;
    }

    public StorageOptions storage() {
        return storage;
    }

    public ObservationOptions observation() {
        return observation;
    }

    public OverloadOptions overload() {
        return overload;
    }

    /** This process's id in a cluster (1..N), 0 when it serves alone. */
    public int workerId() {
        return workerId;
    }

    /** Equal options: every option's value and the worker id. */
    @Override
    public boolean equals(Object other) {
        return other instanceof ServeOptions o && values().equals(o.values());
    }

    @Override
    public int hashCode() {
        return values().hashCode();
    }

    /** The command line that makes these options, and the worker id. */
    @Override
    public String toString() {
        return String.join(" ", toArgs()) + (workerId > 0 ? " (worker " + workerId + ")" : "");
    }

    /** Fills in the defaults that depend on the machine and checks every value; errors name the option. */
    private ServeOptions validate() {
        int cores = Runtime.getRuntime().availableProcessors();
        listener.validate();
        execution.validate(cores);
        crypto.validate(cores);
        storage.validate();
        observation.validate();
        overload.validate(observation);
        return this;
    }

    private List<Object> values() {
        List<Object> values = OptionFields.values(this);
        values.add(workerId);
        return values;
    }
}
