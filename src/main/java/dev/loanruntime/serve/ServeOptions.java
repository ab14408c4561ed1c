package dev.loanruntime.serve;

import java.time.Duration;
import java.util.Objects;

import dev.loanruntime.cli.UsageError;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.crypto.ScryptProvider;
import dev.loanruntime.runtime.LogThreshold;
import dev.loanruntime.runtime.ThreadModel;
import dev.loanruntime.stages.Recording;
import dev.loanruntime.stages.ServerTiming;
import dev.loanruntime.store.StoreUri;

/**
 * Everything that decides how one server process runs; immutable. Start from a preset, {@link #defaults()}, and
 * change what differs through {@link #toBuilder()}: {@code ServeOptions.defaults().toBuilder().port(0).build()}.
 * Each builder setter checks its value at once; the error names the option, what it accepts and the bad value.
 *
 * <p>The defaults live here once: the {@code DEFAULT_*} texts are the {@code serve} options' picocli defaults
 * ({@link ServeArgs}), which the environment ({@code LOAN_<OPTION>}) and {@code application.yaml}
 * ({@code loan.<option>}) override, and {@link #defaults()} parses the same texts. Safe from any thread.
 */
public final class ServeOptions {
    /** {@code --host}. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** {@code --port}. */
    public static final String DEFAULT_PORT = "8430";
    /** {@code --threads}. */
    public static final String DEFAULT_THREADS = "virtual";
    /** {@code --platform-threads}. */
    public static final String DEFAULT_PLATFORM_THREADS = "200";
    /** {@code --crypto-queue}. */
    public static final String DEFAULT_CRYPTO_QUEUE = "64";
    /** {@code --max-derivations}: 0 derives the bound from the heap. */
    public static final String DEFAULT_MAX_DERIVATIONS = "0";
    /** {@code --store}. */
    public static final String DEFAULT_STORE = "local";
    /** {@code --member-cost}: the lesson's. */
    public static final String DEFAULT_MEMBER_COST = "65536,8,8";
    /** {@code --session-ttl}, in seconds. */
    public static final String DEFAULT_SESSION_TTL = "1800";
    /** {@code --scrypt}. */
    public static final String DEFAULT_SCRYPT = "reuse";
    /** {@code --server-timing}. */
    public static final String DEFAULT_SERVER_TIMING = "on-request";
    /** {@code --stages}: off, because the stage points cost 5-12% of /books' throughput on one core. */
    public static final String DEFAULT_STAGES = "off";
    /**
     * {@code --pin-watch}: on, so that a pinned carrier shows in /runtime without asking; the JFR recording it runs
     * costs 2-4% of /books' CPU per request on one core, as any running recording does.
     */
    public static final String DEFAULT_PIN_WATCH = "on";
    /** {@code --log-pinned}: off, because a server that pins by design would log a line per request. */
    public static final String DEFAULT_LOG_PINNED = "off";
    /** {@code --log-slow-requests}: off; it needs {@code --stages on}, whose points it prints. */
    public static final String DEFAULT_LOG_SLOW_REQUESTS = "off";
    /**
     * {@code --drain-delay}, in seconds: how long a server that got SIGTERM reports not-ready while it keeps
     * serving, before its listener closes. Sized to deploy/haproxy.cfg's check: (fall 3 + 1) x inter 1 s.
     */
    public static final String DEFAULT_DRAIN_DELAY = "4";
    /** The longest drain delay: ten minutes. */
    public static final Duration MAX_DRAIN_DELAY = Duration.ofMinutes(10);
    /** The longest session: one day. */
    public static final Duration MAX_SESSION_TTL = Duration.ofDays(1);

    private final String host;
    private final int port;
    private final ThreadModel threads;
    private final int platformThreads;
    private final int carriers;
    private final int cryptoThreads;
    private final int cryptoQueue;
    private final int maxDerivations;
    private final StoreUri store;
    /** Null: the store's own default, so that a builder that changes the store changes the default too. */
    private final Integer storeReplicas;
    private final ScryptCost memberCost;
    private final Duration sessionTtl;
    private final int workerId;
    private final ScryptProvider scrypt;
    private final ServerTiming serverTiming;
    private final Recording stages;
    private final Recording pinWatch;
    private final LogThreshold logPinned;
    private final LogThreshold logSlowRequests;
    private final Duration drainDelay;

    private ServeOptions(Builder b) {
        this.host = b.host;
        this.port = b.port;
        this.threads = b.threads;
        this.platformThreads = b.platformThreads;
        this.carriers = b.carriers;
        this.cryptoThreads = b.cryptoThreads;
        this.cryptoQueue = b.cryptoQueue;
        this.maxDerivations = b.maxDerivations;
        this.store = b.store;
        this.storeReplicas = b.storeReplicas;
        this.memberCost = b.memberCost;
        this.sessionTtl = b.sessionTtl;
        this.workerId = b.workerId;
        this.scrypt = b.scrypt;
        this.serverTiming = b.serverTiming;
        this.stages = b.stages;
        this.pinWatch = b.pinWatch;
        this.logPinned = b.logPinned;
        this.logSlowRequests = b.logSlowRequests;
        this.drainDelay = b.drainDelay;
    }

    /**
     * The preset: the lesson's single machine on {@value #DEFAULT_HOST}:{@value #DEFAULT_PORT}, virtual threads,
     * one carrier and one crypto thread per core, process-local state, the lesson's member cost, half-hour sessions,
     * not a cluster worker.
     */
    public static ServeOptions defaults() {
        int cores = Runtime.getRuntime().availableProcessors();
        Builder b = new Builder();
        b.host(DEFAULT_HOST)
                .port(Integer.parseInt(DEFAULT_PORT))
                .threads(ThreadModel.parse(DEFAULT_THREADS))
                .platformThreads(Integer.parseInt(DEFAULT_PLATFORM_THREADS))
                .carriers(cores)
                .cryptoThreads(cores)
                .cryptoQueue(Integer.parseInt(DEFAULT_CRYPTO_QUEUE))
                .maxDerivations(Integer.parseInt(DEFAULT_MAX_DERIVATIONS))
                .store(StoreUri.parse(DEFAULT_STORE))
                .memberCost(ScryptCost.parse(DEFAULT_MEMBER_COST))
                .sessionTtl(Duration.ofSeconds(Long.parseLong(DEFAULT_SESSION_TTL)))
                .workerId(0)
                .scrypt(ScryptProvider.parse(DEFAULT_SCRYPT))
                .serverTiming(ServerTiming.parse(DEFAULT_SERVER_TIMING))
                .stages(Recording.parse(DEFAULT_STAGES))
                .pinWatch(Recording.parse(DEFAULT_PIN_WATCH))
                .logPinned(LogThreshold.parse(DEFAULT_LOG_PINNED))
                .logSlowRequests(LogThreshold.parse(DEFAULT_LOG_SLOW_REQUESTS))
                .drainDelay(Duration.ofSeconds(Long.parseLong(DEFAULT_DRAIN_DELAY)));
        return b.build();
    }

    /** A builder that starts from these options. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** The same options for worker {@code id} of a cluster. */
    public ServeOptions asWorker(int id) {
        return toBuilder().workerId(id).build();
    }

    /** The same options for a server of its own (no worker id) listening on {@code host}:{@code port}. */
    public ServeOptions alone(String host, int port) {
        return toBuilder().host(host).port(port).workerId(0).build();
    }

    /**
     * Whether the listener binds with {@code SO_REUSEPORT}. Only cluster workers do: they must share one port, while
     * a server started alone on a taken port should fail loudly instead of silently taking half of its traffic.
     */
    public boolean reusePort() {
        return workerId > 0;
    }

    /** Address to bind. */
    public String host() {
        return host;
    }

    /** Port to bind, 0 for any free port. */
    public int port() {
        return port;
    }

    /** Which threads run the handlers. */
    public ThreadModel threads() {
        return threads;
    }

    /** Size of the handler pool in the platform model. */
    public int platformThreads() {
        return platformThreads;
    }

    /** Carrier threads for all virtual threads. */
    public int carriers() {
        return carriers;
    }

    /** Platform threads that run pooled derivations. */
    public int cryptoThreads() {
        return cryptoThreads;
    }

    /** Pooled derivations that may wait for a crypto thread before requests are refused. */
    public int cryptoQueue() {
        return cryptoQueue;
    }

    /** Derivations that may hold their memory at once (0: derived from the heap). */
    public int maxDerivations() {
        return maxDerivations;
    }

    /** Where the loan counter and the sessions live. */
    public StoreUri store() {
        return store;
    }

    /** Replicas that must confirm a store write before it is acknowledged ({@code --store-replicas}). */
    public int storeReplicas() {
        return storeReplicas == null ? store.defaultReplicas() : storeReplicas;
    }

    /** scrypt cost of the members' password hashes. */
    public ScryptCost memberCost() {
        return memberCost;
    }

    /** How long a member's session lives. */
    public Duration sessionTtl() {
        return sessionTtl;
    }

    /** This process's id in a cluster (1..N), 0 when it serves alone. */
    public int workerId() {
        return workerId;
    }

    /** Which scrypt implementation derives the keys. */
    public ScryptProvider scrypt() {
        return scrypt;
    }

    /** When responses carry the request's stages in a {@code Server-Timing} header. */
    public ServerTiming serverTiming() {
        return serverTiming;
    }

    /** Whether the server stamps its requests' stage points at all. */
    public Recording stages() {
        return stages;
    }

    /** Whether the server watches for virtual threads pinned to their carriers (a JFR recording). */
    public Recording pinWatch() {
        return pinWatch;
    }

    /** Which pinned virtual threads get a log line (only with {@code --pin-watch on}). */
    public LogThreshold logPinned() {
        return logPinned;
    }

    /** Which requests get a log line with their stages (only with {@code --stages on}). */
    public LogThreshold logSlowRequests() {
        return logSlowRequests;
    }

    /** After SIGTERM: how long the server reports not-ready and keeps serving before it stops accepting. */
    public Duration drainDelay() {
        return drainDelay;
    }

    /**
     * Changes options one at a time; each setter checks its value and throws an {@link IllegalArgumentException}
     * that names the option and the bad value ({@link UsageError}). Not thread-safe; use it on one thread.
     */
    public static final class Builder {
        private String host;
        private int port;
        private ThreadModel threads;
        private int platformThreads;
        private int carriers;
        private int cryptoThreads;
        private int cryptoQueue;
        private int maxDerivations;
        private StoreUri store;
        private Integer storeReplicas;
        private ScryptCost memberCost;
        private Duration sessionTtl;
        private int workerId;
        private ScryptProvider scrypt;
        private ServerTiming serverTiming;
        private Recording stages;
        private Recording pinWatch;
        private LogThreshold logPinned;
        private LogThreshold logSlowRequests;
        private Duration drainDelay;

        private Builder() {
        }

        private Builder(ServeOptions o) {
            host = o.host;
            port = o.port;
            threads = o.threads;
            platformThreads = o.platformThreads;
            carriers = o.carriers;
            cryptoThreads = o.cryptoThreads;
            cryptoQueue = o.cryptoQueue;
            maxDerivations = o.maxDerivations;
            store = o.store;
            storeReplicas = o.storeReplicas;
            memberCost = o.memberCost;
            sessionTtl = o.sessionTtl;
            workerId = o.workerId;
            scrypt = o.scrypt;
            serverTiming = o.serverTiming;
            stages = o.stages;
            pinWatch = o.pinWatch;
            logPinned = o.logPinned;
            logSlowRequests = o.logSlowRequests;
            drainDelay = o.drainDelay;
        }

        public Builder host(String host) {
            if (host == null || host.isBlank()) {
                throw UsageError.invalid("--host", "a host name or address", host);
            }
            this.host = host;
            return this;
        }

        public Builder port(int port) {
            UsageError.check("--port", port, 0, 65_535);
            this.port = port;
            return this;
        }

        public Builder threads(ThreadModel threads) {
            this.threads = Objects.requireNonNull(threads, "threads");
            return this;
        }

        public Builder platformThreads(int platformThreads) {
            UsageError.check("--platform-threads", platformThreads, 1, 10_000);
            this.platformThreads = platformThreads;
            return this;
        }

        public Builder carriers(int carriers) {
            UsageError.check("--carriers", carriers, 1, 256);
            this.carriers = carriers;
            return this;
        }

        public Builder cryptoThreads(int cryptoThreads) {
            UsageError.check("--crypto-threads", cryptoThreads, 1, 256);
            this.cryptoThreads = cryptoThreads;
            return this;
        }

        public Builder cryptoQueue(int cryptoQueue) {
            UsageError.check("--crypto-queue", cryptoQueue, 0, 100_000);
            this.cryptoQueue = cryptoQueue;
            return this;
        }

        public Builder maxDerivations(int maxDerivations) {
            UsageError.check("--max-derivations", maxDerivations, 0, 1024);
            this.maxDerivations = maxDerivations;
            return this;
        }

        public Builder store(StoreUri store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /** 0 to 16; above 0 only with a Redis store. Unset (null): the store's own default, 1 behind Sentinel. */
        public Builder storeReplicas(Integer storeReplicas) {
            if (storeReplicas != null) {
                UsageError.check("--store-replicas", storeReplicas, 0, 16);
            }
            this.storeReplicas = storeReplicas;
            return this;
        }

        /** At most the lesson's memory per derivation (64 MiB), and p at most 64. */
        public Builder memberCost(ScryptCost memberCost) {
            Objects.requireNonNull(memberCost, "memberCost");
            if (memberCost.memoryBytes() > ScryptCost.LESSON.memoryBytes() || memberCost.p() > 64) {
                throw UsageError.invalid("--member-cost",
                        "at most the lesson's memory (128 * r * N <= 64 MiB) and p <= 64", memberCost.label());
            }
            this.memberCost = memberCost;
            return this;
        }

        /** From one second to {@link #MAX_SESSION_TTL}. */
        public Builder sessionTtl(Duration sessionTtl) {
            UsageError.check("--session-ttl", sessionTtl == null ? 0 : sessionTtl.toSeconds(), 1,
                    MAX_SESSION_TTL.toSeconds());
            this.sessionTtl = sessionTtl;
            return this;
        }

        public Builder workerId(int workerId) {
            UsageError.check("--worker-id", workerId, 0, 1024);
            this.workerId = workerId;
            return this;
        }

        public Builder scrypt(ScryptProvider scrypt) {
            this.scrypt = Objects.requireNonNull(scrypt, "scrypt");
            return this;
        }

        public Builder serverTiming(ServerTiming serverTiming) {
            this.serverTiming = Objects.requireNonNull(serverTiming, "serverTiming");
            return this;
        }

        public Builder stages(Recording stages) {
            this.stages = Objects.requireNonNull(stages, "stages");
            return this;
        }

        public Builder pinWatch(Recording pinWatch) {
            this.pinWatch = Objects.requireNonNull(pinWatch, "pinWatch");
            return this;
        }

        public Builder logPinned(LogThreshold logPinned) {
            this.logPinned = Objects.requireNonNull(logPinned, "logPinned");
            return this;
        }

        public Builder logSlowRequests(LogThreshold logSlowRequests) {
            this.logSlowRequests = Objects.requireNonNull(logSlowRequests, "logSlowRequests");
            return this;
        }

        /** From 0 (stop accepting at once) to {@link #MAX_DRAIN_DELAY}, in whole seconds. */
        public Builder drainDelay(Duration drainDelay) {
            UsageError.check("--drain-delay", drainDelay == null ? -1 : drainDelay.toSeconds(), 0,
                    MAX_DRAIN_DELAY.toSeconds());
            this.drainDelay = drainDelay;
            return this;
        }

        public ServeOptions build() {
            if (storeReplicas != null && storeReplicas > 0 && !store.replicates()) {
                throw UsageError.invalid("--store-replicas", "0 with --store " + store
                        + " (only a Redis store has replicas)", storeReplicas);
            }
            if (logSlowRequests.on() && stages != Recording.ON) {
                throw UsageError.invalid("--log-slow-requests", "off unless --stages on (its lines are the stages)",
                        logSlowRequests.label());
            }
            if (logPinned.on() && pinWatch != Recording.ON) {
                throw UsageError.invalid("--log-pinned", "off unless --pin-watch on (its lines are the pins it sees)",
                        logPinned.label());
            }
            return new ServeOptions(this);
        }
    }
}
