package dev.loanruntime.serve;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import picocli.CommandLine;
import picocli.CommandLine.Option;

import dev.loanruntime.cli.Converters;
import dev.loanruntime.cli.Converters.ConcurrencyLimitConverter;
import dev.loanruntime.cli.Converters.DurationConverter;
import dev.loanruntime.cli.Converters.ThresholdConverter;
import dev.loanruntime.cli.Converters.RecordingConverter;
import dev.loanruntime.cli.Converters.ScryptCostConverter;
import dev.loanruntime.cli.Converters.ScryptProviderConverter;
import dev.loanruntime.cli.Converters.SecondsOrDurationConverter;
import dev.loanruntime.cli.Converters.ServerTimingConverter;
import dev.loanruntime.cli.Converters.StoreUriConverter;
import dev.loanruntime.cli.Converters.ThreadModelConverter;
import dev.loanruntime.cli.Defaults;
import dev.loanruntime.cli.Durations;
import dev.loanruntime.cli.Range;
import dev.loanruntime.cli.UsageError;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.crypto.ScryptProvider;
import dev.loanruntime.overload.ConcurrencyLimit;
import dev.loanruntime.settings.Threshold;
import dev.loanruntime.settings.ThreadModel;
import dev.loanruntime.settings.Recording;
import dev.loanruntime.stages.ServerTiming;
import dev.loanruntime.store.StoreSettings;
import dev.loanruntime.store.StoreUri;

/**
 * Everything that decides how one server process runs, each option defined once, here: its name, type, default,
 * help ({@code @Option}) and range ({@link Range}). From these follow {@code serve}'s and {@code cluster}'s
 * command lines (both mix this class in), the environment and application.yaml ({@code SettingsDefaults}),
 * {@link #defaults()}, and a worker's command line ({@link #toArgs()}: {@code parse(o.toArgs())} equals {@code o}).
 * docs/options.md has a row per option; a test holds it to the options here.
 *
 * <p>Adding an option: a field with its {@code @Option} (and a {@code @Range} for a number), an accessor, and its
 * use. Values change only while picocli parses; once {@link #validated} they are fixed, and an instance may be
 * shared between threads that receive it the usual ways (a thread's start, an executor).
 */
public final class ServeOptions {
    @Option(names = "--host", defaultValue = Defaults.HOST, paramLabel = "HOST",
            description = "Address to bind (default: ${DEFAULT-VALUE}).")
    private String host;

    @Option(names = "--port", defaultValue = Defaults.PORT, paramLabel = "PORT",
            description = "Port to bind, 0 for any free port (default: ${DEFAULT-VALUE}).")
    @Range(min = 0, max = 65_535)
    private int port;

    @Option(names = "--threads", defaultValue = "virtual", paramLabel = "MODEL",
            converter = ThreadModelConverter.class,
            description = "Threads that run route handlers: virtual (one virtual thread per request) or platform "
                    + "(a fixed pool of platform threads, thread-per-request) (default: ${DEFAULT-VALUE}).")
    private ThreadModel threads;

    @Option(names = "--platform-threads", defaultValue = "200", paramLabel = "N",
            description = "Handler pool size with --threads platform (default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 10_000)
    private int platformThreads;

    // No default: the number of cores, filled in by validated().
    @Option(names = "--carriers", paramLabel = "N",
            description = "Carrier threads that run all virtual threads; 1 is the single-carrier mode, the JVM's "
                    + "event loop (default: the number of cores).")
    @Range(min = 1, max = 256)
    private Integer carriers;

    @Option(names = "--crypto-threads", paramLabel = "N",
            description = "Platform threads for pooled derivations (default: the number of cores; libuv's pool has "
                    + "4, but more threads than cores derive no faster and slow the light requests down).")
    @Range(min = 1, max = 256)
    private Integer cryptoThreads;

    @Option(names = "--crypto-queue", defaultValue = "64", paramLabel = "N",
            description = "Derivations that may wait, each bound apart: for a crypto thread (the pooled routes) and "
                    + "for the memory of --max-derivations (any route); past either, 503 busy at once "
                    + "(default: ${DEFAULT-VALUE}).")
    @Range(min = 0, max = 100_000)
    private int cryptoQueue;

    @Option(names = "--max-derivations", defaultValue = "0", paramLabel = "N",
            description = "Derivations that may hold their 64 MiB at once, in any thread model; 0 derives it from "
                    + "the heap: half of -Xmx / 64 MiB (default: ${DEFAULT-VALUE}).")
    @Range(min = 0, max = 1024)
    private int maxDerivations;

    @Option(names = "--store", defaultValue = "local", paramLabel = "URI", converter = StoreUriConverter.class,
            description = "Where the loan counter and the sessions live: local (this process's memory), "
                    + "sqlite:PATH (a file shared by the processes of this machine), "
                    + "redis[s]://[USER@]HOST:PORT[/DB] (a server shared by processes on many machines; rediss: TLS) "
                    + "redis-sentinel://[USER@]HOST:PORT[,HOST:PORT...]/MASTER[/DB] (the master that Sentinels name, "
                    + "followed after a failover) or postgresql://[USER@]HOST:PORT/DB (a database shared by processes "
                    + "on many machines, over a pool of --store-pool connections). Passwords from LOAN_STORE_PASSWORD "
                    + "and LOAN_SENTINEL_PASSWORD, "
                    + "which no process list shows (default: ${DEFAULT-VALUE}).")
    private StoreUri store;

    // No default: the store's own (1 behind Sentinel, else 0), so that changing the store changes it too.
    @Option(names = "--store-replicas", paramLabel = "N",
            description = "Redis replicas that must confirm a write (WAIT) before it is acknowledged; otherwise "
                    + "503 store_unavailable (default: 1 with redis-sentinel, else 0).")
    @Range(min = 0, max = 16)
    private Integer storeReplicas;

    // No default: HikariCP's size (10), and an error with a store that has no pool.
    @Option(names = "--store-pool", paramLabel = "N",
            description = "Connections in the PostgreSQL store's pool: the most requests that talk to the database "
                    + "at once; the others wait for a connection (default: 10, HikariCP's).")
    @Range(min = 1, max = 1000)
    private Integer storePool;

    @Option(names = "--store-pool-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long a request waits for a connection of the PostgreSQL store's pool before it gets "
                    + "503 store_unavailable (default: 1s).")
    @Range(min = 250, max = 60_000)
    private Duration storePoolTimeout;

    @Option(names = "--member-cost", defaultValue = Defaults.COST, paramLabel = "N,r,p",
            converter = ScryptCostConverter.class,
            description = "scrypt cost of the members' password hashes; lower it for tests "
                    + "(default: ${DEFAULT-VALUE}, the lesson's).")
    private ScryptCost memberCost;

    @Option(names = "--session-ttl", defaultValue = "1800", paramLabel = "SECONDS",
            description = "How long a member's session lives (default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 86_400)
    private long sessionTtl;

    @Option(names = "--scrypt", defaultValue = Defaults.SCRYPT, paramLabel = "PROVIDER",
            converter = ScryptProviderConverter.class,
            description = "scrypt implementation: reuse (pure Java over a 64 MiB workspace that each derivation "
                    + "permit keeps: about 20 KB of garbage per derivation), bouncycastle (BouncyCastle's "
                    + "SCrypt.generate: 512 MiB of garbage per derivation; for comparison) or conscrypt (BoringSSL "
                    + "through a bundled native library; where it cannot load, a warning and reuse) "
                    + "(default: ${DEFAULT-VALUE}).")
    private ScryptProvider scrypt;

    @Option(names = "--server-timing", defaultValue = "on-request", paramLabel = "WHEN",
            converter = ServerTimingConverter.class,
            description = "When a response carries its request's stages in a Server-Timing header: on-request "
                    + "(only for requests with 'Loan-Timing: on'), always (e.g. for a browser's developer tools; "
                    + "timings reveal internals) or off (default: ${DEFAULT-VALUE}).")
    private ServerTiming serverTiming;

    // Off: the stage points cost a share of /books' throughput, which experiment 12 measures.
    @Option(names = "--stages", defaultValue = "off", paramLabel = "on|off", converter = RecordingConverter.class,
            description = "Stamp each request's stage points (accepted, first run, head read, handler, crypto pool, "
                    + "send) for Server-Timing and JFR; off by default for their cost, which experiment 12 "
                    + "measures (docs/request-stages.md) (default: ${DEFAULT-VALUE}).")
    private Recording stages;

    // On, so that a pinned carrier shows in /runtime without asking; experiment 12 measures what it costs.
    @Option(names = "--pin-watch", defaultValue = "on", paramLabel = "on|off", converter = RecordingConverter.class,
            description = "Watch for virtual threads pinned to their carriers and count them in /runtime and "
                    + "/observe/metrics, through a JFR recording; experiment 12 measures its cost "
                    + "(docs/pinning.md) (default: ${DEFAULT-VALUE}).")
    private Recording pinWatch;

    // On: the one figure that says "the carriers are starved" before the users do; experiment 12 measures its cost.
    @Option(names = "--carrier-delay", defaultValue = "on", paramLabel = "on|off", converter = RecordingConverter.class,
            description = "Measure how late ready work gets to run: a probe thread (virtual, or platform with "
                    + "--threads platform) sleeps --carrier-delay-resolution and records how late it wakes, shown "
                    + "with the crypto pool's queue wait in /runtime, /observe/metrics and JFR; off runs no probe "
                    + "(docs/carrier-delay.md) (default: ${DEFAULT-VALUE}).")
    private Recording carrierDelay;

    @Option(names = "--carrier-delay-resolution", defaultValue = "10ms", paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "How long the carrier-delay probe sleeps between samples, as Node's monitorEventLoopDelay "
                    + "resolution (default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 1000)
    private Duration carrierDelayResolution;

    // Off: a server that pins by design would log a line per request.
    @Option(names = "--log-pinned", defaultValue = "off", paramLabel = "off|DURATION",
            converter = ThresholdConverter.class,
            description = "With --pin-watch on: log one line, with the top of the stack, for each virtual thread "
                    + "that stays pinned to its carrier at least this long, e.g. 20ms; the watch counts the pins "
                    + "whether or not they are logged (default: ${DEFAULT-VALUE}).")
    private Threshold logPinned;

    @Option(names = "--log-slow-requests", defaultValue = "off", paramLabel = "off|DURATION",
            converter = ThresholdConverter.class,
            description = "With --stages on: log one line with the order and durations of the stages of each request "
                    + "that took at least this long, from accepted to sent, e.g. 500ms (default: ${DEFAULT-VALUE}).")
    private Threshold logSlowRequests;

    @Option(names = "--limit", defaultValue = "none", paramLabel = "none|fixed:PERMITS[:QUEUE]|aimd",
            converter = ConcurrencyLimitConverter.class,
            description = "Helidon's concurrency limit on the listener (server.concurrency-limit), for every request "
                    + "whatever its route: fixed (permits, and a queue of QUEUE, default 0) or aimd (from one permit "
                    + "per core, up while answers are fast, down when slower than 5 s); past it 503 overloaded "
                    + "(docs/overload.md) (default: ${DEFAULT-VALUE}).")
    private ConcurrencyLimit limit;

    // Off: the bound depends on what the users of the heavy routes can wait; experiment 14 measures a few.
    @Option(names = "--shed-delay", defaultValue = "off", paramLabel = "off|DURATION",
            converter = ThresholdConverter.class,
            description = "Refuse heavy requests (the scrypt routes, login) with 503 overloaded while the carrier "
                    + "delay is over this, e.g. 50ms: the p99 of its last second, or the probe late by more than it "
                    + "now; health, /runtime, metrics and the light routes are never refused. Needs --carrier-delay "
                    + "on (default: ${DEFAULT-VALUE}).")
    private Threshold shedDelay;

    // Sized to deploy/haproxy.cfg's check: (fall 3 + 1) x inter 1 s.
    @Option(names = "--drain-delay", defaultValue = "4s", paramLabel = "DURATION",
            converter = SecondsOrDurationConverter.class,
            description = "After SIGTERM, report not-ready (/observe/health/ready and /observe/health/check/drain "
                    + "answer 503) and keep serving this long, e.g. 4s or 500ms (a bare number is seconds), so that a "
                    + "load balancer's health check takes this server out before its listener closes; then finish "
                    + "the requests in flight and exit. 0: stop accepting at once. SIGINT, or the end of a cluster's "
                    + "primary, skips it (default: ${DEFAULT-VALUE}).")
    @Range(min = 0, max = 600_000)
    private Duration drainDelay;

    // Helidon 4.5 has no deadline for a request's headers and no read timeout on server sockets: without this, a
    // client sending its head a byte at a time holds a connection forever. A real client sends its whole head (well
    // under 8 KiB) in one packet; 10 s leaves room for a bad mobile link.
    @Option(names = "--request-head-timeout", defaultValue = "10s", paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "Once a request line has arrived, its headers must end within this time, or the client "
                    + "gets 408 and the connection closes, e.g. 10s or 500ms (default: ${DEFAULT-VALUE}).")
    private Duration requestHeadTimeout;

    /** This process's id in a cluster (1..N), 0 when it serves alone: not an option, the primary gives it. */
    private int workerId;

    /** Every {@code @Option} field, in the order they are declared. */
    private static final List<Field> OPTIONS = Arrays.stream(ServeOptions.class.getDeclaredFields())
            .filter(f -> f.isAnnotationPresent(Option.class))
            .toList();

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
        for (Field field : OPTIONS) {
            if (Arrays.stream(field.getAnnotation(Option.class).names()).noneMatch(named::contains)) {
                try {
                    field.set(changed, field.get(this));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot copy " + field.getName(), e);
                }
            }
        }
        changed.workerId = workerId;
        return changed;
    }

    /**
     * Every option with its value, in the form {@code parse} reads: {@code --host 127.0.0.1 --port 8430 ...}. An
     * option without a value ({@code --store-replicas} left to the store) is left out, so it gets the same default.
     */
    public List<String> toArgs() {
        List<String> args = new ArrayList<>();
        for (Field field : OPTIONS) {
            Object value = valueOf(field);
            if (value != null) {
                args.add(field.getAnnotation(Option.class).names()[0]);
                args.add(format(field, value));
            }
        }
        return args;
    }

    /** Checks the options that picocli filled in (a mixin of a command); an error is the command's usage error. */
    public ServeOptions validated(CommandLine commandLine) {
        return UsageError.orUsage(commandLine, this::validate);
    }

    /** The same options for worker {@code id} of a cluster. */
    public ServeOptions asWorker(int id) {
        UsageError.check("--worker-id", id, 0, 1024);
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

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public ThreadModel threads() {
        return threads;
    }

    public int platformThreads() {
        return platformThreads;
    }

    public int carriers() {
        return carriers;
    }

    public int cryptoThreads() {
        return cryptoThreads;
    }

    public int cryptoQueue() {
        return cryptoQueue;
    }

    /** 0: derived from the heap. */
    public int maxDerivations() {
        return maxDerivations;
    }

    public StoreUri store() {
        return store;
    }

    /** {@code --store-replicas}, or the store's own default when it was not given. */
    public int storeReplicas() {
        return storeReplicas == null ? store.defaultReplicas() : storeReplicas;
    }

    /** {@code --store-pool}, or HikariCP's default. */
    public int storePool() {
        return storePool == null ? StoreSettings.DEFAULT_POOL : storePool;
    }

    /** {@code --store-pool-timeout}, or the default of one second. */
    public Duration storePoolTimeout() {
        return storePoolTimeout == null ? StoreSettings.DEFAULT_POOL_TIMEOUT : storePoolTimeout;
    }

    public ScryptCost memberCost() {
        return memberCost;
    }

    public Duration sessionTtl() {
        return Duration.ofSeconds(sessionTtl);
    }

    /** This process's id in a cluster (1..N), 0 when it serves alone. */
    public int workerId() {
        return workerId;
    }

    public ScryptProvider scrypt() {
        return scrypt;
    }

    public ServerTiming serverTiming() {
        return serverTiming;
    }

    public Recording stages() {
        return stages;
    }

    public Recording pinWatch() {
        return pinWatch;
    }

    public Recording carrierDelay() {
        return carrierDelay;
    }

    public Duration carrierDelayResolution() {
        return carrierDelayResolution;
    }

    public Threshold logPinned() {
        return logPinned;
    }

    public ConcurrencyLimit limit() {
        return limit;
    }

    public Threshold shedDelay() {
        return shedDelay;
    }

    public Threshold logSlowRequests() {
        return logSlowRequests;
    }

    public Duration drainDelay() {
        return drainDelay;
    }

    public Duration requestHeadTimeout() {
        return requestHeadTimeout;
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
        if (carriers == null) {
            carriers = cores;
        }
        if (cryptoThreads == null) {
            cryptoThreads = cores;
        }
        UsageError.checkRanges(this);
        if (host == null || host.isBlank()) {
            throw UsageError.invalid("--host", "a host name or address", host);
        }
        if (memberCost.memoryBytes() > ScryptCost.LESSON.memoryBytes() || memberCost.p() > 64) {
            throw UsageError.invalid("--member-cost",
                    "at most the lesson's memory (128 * r * N <= 64 MiB) and p <= 64", memberCost.label());
        }
        if (requestHeadTimeout.isZero()) {
            throw UsageError.invalid("--request-head-timeout", "a duration above 0",
                    Durations.format(requestHeadTimeout));
        }
        if (storeReplicas != null && storeReplicas > 0 && !store.replicates()) {
            throw UsageError.invalid("--store-replicas", "0 with --store " + store
                    + " (only a Redis store has replicas)", storeReplicas);
        }
        for (Object[] pooled : new Object[][] {{"--store-pool", storePool},
                {"--store-pool-timeout", storePoolTimeout == null ? null : Durations.format(storePoolTimeout)}}) {
            if (pooled[1] != null && !store.pooled()) {
                throw UsageError.invalid((String) pooled[0], "no value with --store " + store
                        + " (only a PostgreSQL store has a connection pool)", pooled[1]);
            }
        }
        if (logSlowRequests.on() && stages != Recording.ON) {
            throw UsageError.invalid("--log-slow-requests", "off unless --stages on (its lines are the stages)",
                    logSlowRequests.label());
        }
        if (shedDelay.on() && shedDelay.threshold().isZero()) {
            throw UsageError.invalid("--shed-delay", "off or a duration above 0", shedDelay.label());
        }
        if (shedDelay.on() && carrierDelay != Recording.ON) {
            throw UsageError.invalid("--shed-delay", "off unless --carrier-delay on (it sheds on the carrier delay)",
                    shedDelay.label());
        }
        if (logPinned.on() && pinWatch != Recording.ON) {
            throw UsageError.invalid("--log-pinned", "off unless --pin-watch on (its lines are the pins it sees)",
                    logPinned.label());
        }
        return this;
    }

    private List<Object> values() {
        List<Object> values = new ArrayList<>();
        for (Field field : OPTIONS) {
            values.add(valueOf(field));
        }
        values.add(workerId);
        return values;
    }

    private Object valueOf(Field field) {
        try {
            return field.get(this);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + field.getName(), e);
        }
    }

    /** A value as its option's converter writes it back, or as text for the types picocli converts itself. */
    @SuppressWarnings("unchecked")
    private static String format(Field field, Object value) {
        Class<? extends CommandLine.ITypeConverter<?>>[] converters = field.getAnnotation(Option.class).converter();
        if (converters.length == 1 && Converters.Format.class.isAssignableFrom(converters[0])) {
            try {
                return ((Converters.Format<Object>) converters[0].getDeclaredConstructor().newInstance()).format(value);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot make " + converters[0].getName(), e);
            }
        }
        return String.valueOf(value);
    }
}
