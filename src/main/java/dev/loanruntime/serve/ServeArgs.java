package dev.loanruntime.serve;

import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.time.Duration;

import dev.loanruntime.cli.Converters.ScryptCostConverter;
import dev.loanruntime.cli.Converters.ScryptProviderConverter;
import dev.loanruntime.cli.Converters.LogThresholdConverter;
import dev.loanruntime.cli.Converters.RecordingConverter;
import dev.loanruntime.cli.Converters.ServerTimingConverter;
import dev.loanruntime.cli.Converters.StoreUriConverter;
import dev.loanruntime.cli.Converters.ThreadModelConverter;
import dev.loanruntime.cli.UsageError;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.crypto.ScryptProvider;
import dev.loanruntime.runtime.LogThreshold;
import dev.loanruntime.runtime.ThreadModel;
import dev.loanruntime.stages.Recording;
import dev.loanruntime.stages.ServerTiming;
import dev.loanruntime.store.StoreUri;

/** The options of one server process, shared by {@code serve} and by the commands that start servers. */
public final class ServeArgs {
    @Option(names = "--host", defaultValue = ServeOptions.DEFAULT_HOST, paramLabel = "HOST",
            description = "Address to bind (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", defaultValue = ServeOptions.DEFAULT_PORT, paramLabel = "PORT",
            description = "Port to bind, 0 for any free port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--threads", defaultValue = ServeOptions.DEFAULT_THREADS, paramLabel = "MODEL",
            converter = ThreadModelConverter.class,
            description = "Threads that run route handlers: virtual (one virtual thread per request) or platform "
                    + "(a fixed pool of platform threads, thread-per-request) (default: ${DEFAULT-VALUE}).")
    ThreadModel threads;

    @Option(names = "--platform-threads", defaultValue = ServeOptions.DEFAULT_PLATFORM_THREADS, paramLabel = "N",
            description = "Handler pool size with --threads platform (default: ${DEFAULT-VALUE}).")
    int platformThreads;

    @Option(names = "--carriers", paramLabel = "N",
            description = "Carrier threads that run all virtual threads; 1 is the single-carrier mode, the JVM's "
                    + "event loop (default: the number of cores).")
    Integer carriers;

    @Option(names = "--crypto-threads", paramLabel = "N",
            description = "Platform threads for pooled derivations (default: the number of cores; libuv's pool has "
                    + "4, but more threads than cores derive no faster and slow the light requests down).")
    Integer cryptoThreads;

    @Option(names = "--crypto-queue", defaultValue = ServeOptions.DEFAULT_CRYPTO_QUEUE, paramLabel = "N",
            description = "Derivations that may wait for a crypto thread; beyond that, 503 at once "
                    + "(default: ${DEFAULT-VALUE}).")
    int cryptoQueue;

    @Option(names = "--max-derivations", defaultValue = ServeOptions.DEFAULT_MAX_DERIVATIONS, paramLabel = "N",
            description = "Derivations that may hold their 64 MiB at once, in any thread model; 0 derives it from "
                    + "the heap: half of -Xmx / 64 MiB (default: ${DEFAULT-VALUE}).")
    int maxDerivations;

    @Option(names = "--store", defaultValue = ServeOptions.DEFAULT_STORE, paramLabel = "URI",
            converter = StoreUriConverter.class,
            description = "Where the loan counter and the sessions live: local (this process's memory), "
                    + "sqlite:PATH (a file shared by the processes of this machine), "
                    + "redis[s]://[USER@]HOST:PORT[/DB] (a server shared by processes on many machines; rediss: TLS) or "
                    + "redis-sentinel://[USER@]HOST:PORT[,HOST:PORT...]/MASTER[/DB] (the master that Sentinels name, "
                    + "followed after a failover). Passwords from LOAN_STORE_PASSWORD and LOAN_SENTINEL_PASSWORD, "
                    + "which no process list shows (default: ${DEFAULT-VALUE}).")
    StoreUri store;

    @Option(names = "--store-replicas", paramLabel = "N",
            description = "Redis replicas that must confirm a write (WAIT) before it is acknowledged; otherwise "
                    + "503 store_unavailable (default: 1 with redis-sentinel, else 0).")
    Integer storeReplicas;

    @Option(names = "--member-cost", defaultValue = ServeOptions.DEFAULT_MEMBER_COST, paramLabel = "N,r,p",
            converter = ScryptCostConverter.class,
            description = "scrypt cost of the members' password hashes; lower it for tests "
                    + "(default: ${DEFAULT-VALUE}, the lesson's).")
    ScryptCost memberCost;

    @Option(names = "--session-ttl", defaultValue = ServeOptions.DEFAULT_SESSION_TTL, paramLabel = "SECONDS",
            description = "How long a member's session lives (default: ${DEFAULT-VALUE}).")
    long sessionTtlSeconds;

    @Option(names = "--scrypt", defaultValue = ServeOptions.DEFAULT_SCRYPT, paramLabel = "PROVIDER",
            converter = ScryptProviderConverter.class,
            description = "scrypt implementation: reuse (pure Java over a 64 MiB workspace that each derivation "
                    + "permit keeps: about 20 KB of garbage per derivation), bouncycastle (BouncyCastle's "
                    + "SCrypt.generate: 512 MiB of garbage per derivation; for comparison) or conscrypt (BoringSSL "
                    + "through a bundled native library; where it cannot load, a warning and reuse) "
                    + "(default: ${DEFAULT-VALUE}).")
    ScryptProvider scrypt;

    @Option(names = "--server-timing", defaultValue = ServeOptions.DEFAULT_SERVER_TIMING, paramLabel = "WHEN",
            converter = ServerTimingConverter.class,
            description = "When a response carries its request's stages in a Server-Timing header: on-request "
                    + "(only for requests with 'Loan-Timing: on'), always (e.g. for a browser's developer tools; "
                    + "timings reveal internals) or off (default: ${DEFAULT-VALUE}).")
    ServerTiming serverTiming;

    @Option(names = "--stages", defaultValue = ServeOptions.DEFAULT_STAGES, paramLabel = "on|off",
            converter = RecordingConverter.class,
            description = "Stamp each request's stage points (accepted, first run, head read, handler, crypto pool, "
                    + "send) for Server-Timing and JFR; off by default for their cost, which experiment 12 "
                    + "measures (docs/request-stages.md) (default: ${DEFAULT-VALUE}).")
    Recording stages;

    @Option(names = "--pin-watch", defaultValue = ServeOptions.DEFAULT_PIN_WATCH, paramLabel = "on|off",
            converter = RecordingConverter.class,
            description = "Watch for virtual threads pinned to their carriers and count them in /runtime and "
                    + "/observe/metrics, through a JFR recording; experiment 12 measures its cost "
                    + "(docs/pinning.md) (default: ${DEFAULT-VALUE}).")
    Recording pinWatch;

    @Option(names = "--log-pinned", defaultValue = ServeOptions.DEFAULT_LOG_PINNED, paramLabel = "off|DURATION",
            converter = LogThresholdConverter.class,
            description = "With --pin-watch on: log one line, with the top of the stack, for each virtual thread "
                    + "that stays pinned to its carrier at least this long, e.g. 20ms; the watch counts the pins "
                    + "whether or not they are logged (default: ${DEFAULT-VALUE}).")
    LogThreshold logPinned;

    @Option(names = "--log-slow-requests", defaultValue = ServeOptions.DEFAULT_LOG_SLOW_REQUESTS,
            paramLabel = "off|DURATION", converter = LogThresholdConverter.class,
            description = "With --stages on: log one line with the order and durations of the stages of each request "
                    + "that took at least this long, from accepted to sent, e.g. 500ms (default: ${DEFAULT-VALUE}).")
    LogThreshold logSlowRequests;

    @Option(names = "--drain-delay", defaultValue = ServeOptions.DEFAULT_DRAIN_DELAY, paramLabel = "SECONDS",
            description = "After SIGTERM, report not-ready (/observe/health/ready and /observe/health/check/drain "
                    + "answer 503) and keep serving this long, so that a load balancer's health check takes this "
                    + "server out before its listener closes; then finish the requests in flight and exit. 0: stop "
                    + "accepting at once. SIGINT, or the end of a cluster's primary, skips it "
                    + "(default: ${DEFAULT-VALUE}).")
    long drainDelaySeconds;

    /** Validated options; the error names the option and what it accepts. */
    public ServeOptions toOptions(CommandLine commandLine) {
        int cores = Runtime.getRuntime().availableProcessors();
        return UsageError.orUsage(commandLine, () -> ServeOptions.defaults().toBuilder()
                .host(host)
                .port(port)
                .threads(threads)
                .platformThreads(platformThreads)
                .carriers(carriers == null ? cores : carriers)
                .cryptoThreads(cryptoThreads == null ? cores : cryptoThreads)
                .cryptoQueue(cryptoQueue)
                .maxDerivations(maxDerivations)
                .store(store)
                .storeReplicas(storeReplicas)
                .memberCost(memberCost)
                .sessionTtl(Duration.ofSeconds(sessionTtlSeconds))
                .scrypt(scrypt)
                .serverTiming(serverTiming)
                .stages(stages)
                .pinWatch(pinWatch)
                .logPinned(logPinned)
                .logSlowRequests(logSlowRequests)
                .drainDelay(Duration.ofSeconds(drainDelaySeconds))
                .build());
    }
}
