package dev.loanruntime.store;

import java.time.Duration;
import java.util.function.LongConsumer;

/**
 * How a store is opened: the replicas that must confirm a write (Redis {@code WAIT}), and for a store behind a
 * connection pool (PostgreSQL) the pool's size, how long a request may wait for a connection before it is refused,
 * and where each wait for a connection and each hold of one (from its borrowing to its return) are told, in
 * nanoseconds, on the thread that waited or held.
 *
 * @param replicas    replicas that must confirm a write; only Redis stores take more than 0
 * @param pool        connections in the pool
 * @param poolTimeout the longest wait for a connection; past it, {@link StoreUnavailableException}
 * @param poolWaits   told each wait for a connection, in nanoseconds
 * @param poolHolds   told each hold of a connection, in nanoseconds (HikariCP measures it in whole milliseconds)
 */
public record StoreSettings(int replicas, int pool, Duration poolTimeout, LongConsumer poolWaits,
                            LongConsumer poolHolds) {
    /** HikariCP's own default size. */
    public static final int DEFAULT_POOL = 10;
    /** A request refused after a second without a connection, rather than HikariCP's 30 s. */
    public static final Duration DEFAULT_POOL_TIMEOUT = Duration.ofSeconds(1);

    /** {@code replicas}, the default pool, waits told to nobody. */
    public static StoreSettings replicas(int replicas) {
        return new StoreSettings(replicas, DEFAULT_POOL, DEFAULT_POOL_TIMEOUT, wait -> { }, hold -> { });
    }
}
