package dev.loanruntime.serve;

import java.time.Duration;

import picocli.CommandLine.Option;

import dev.loanruntime.cli.Converters.DurationConverter;
import dev.loanruntime.cli.Converters.StoreUriConverter;
import dev.loanruntime.cli.Durations;
import dev.loanruntime.cli.Range;
import dev.loanruntime.cli.UsageError;
import dev.loanruntime.store.StoreSettings;
import dev.loanruntime.store.StoreUri;

/** One section of {@link ServeOptions}: where the state lives, the store with its replicas or pool, and sessions. */
public final class StorageOptions {
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

    @Option(names = "--session-ttl", defaultValue = "1800", paramLabel = "SECONDS",
            description = "How long a member's session lives (default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 86_400)
    private long sessionTtl;

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

    public Duration sessionTtl() {
        return Duration.ofSeconds(sessionTtl);
    }

    /** Checks this section's values; errors name the option. */
    void validate() {
        UsageError.checkRanges(this);
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
    }
}
