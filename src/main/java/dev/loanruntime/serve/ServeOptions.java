package dev.loanruntime.serve;

import java.time.Duration;

import dev.loanruntime.cli.UsageError;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.crypto.ScryptProvider;
import dev.loanruntime.runtime.ThreadModel;
import dev.loanruntime.store.StoreUri;

/**
 * Everything that decides how one server process runs. Validated on construction: the error names the option,
 * the bad value and what is allowed.
 *
 * @param host            address to bind
 * @param port            port to bind, 0 for any free port
 * @param threads         which threads run the handlers
 * @param platformThreads size of the handler pool in the platform model
 * @param carriers        carrier threads for all virtual threads
 * @param cryptoThreads   platform threads that run pooled derivations
 * @param cryptoQueue     pooled derivations that may wait for a crypto thread before requests are refused
 * @param maxDerivations  derivations that may hold their memory at once (0: derived from the heap)
 * @param store           where the loan counter and the sessions live
 * @param memberCost      scrypt cost of the members' password hashes
 * @param sessionTtl      how long a member's session lives
 * @param workerId        this process's id in a cluster (1..N), 0 when it serves alone
 * @param scrypt          which scrypt implementation derives the keys
 */
public record ServeOptions(String host,
                           int port,
                           ThreadModel threads,
                           int platformThreads,
                           int carriers,
                           int cryptoThreads,
                           int cryptoQueue,
                           int maxDerivations,
                           StoreUri store,
                           ScryptCost memberCost,
                           Duration sessionTtl,
                           int workerId,
                           ScryptProvider scrypt) {
    /** The longest session: one day. */
    public static final Duration MAX_SESSION_TTL = Duration.ofDays(1);

    public ServeOptions {
        if (host == null || host.isBlank()) {
            throw UsageError.invalid("--host", "a host name or address", host);
        }
        UsageError.check("--port", port, 0, 65_535);
        UsageError.check("--platform-threads", platformThreads, 1, 10_000);
        UsageError.check("--carriers", carriers, 1, 256);
        UsageError.check("--crypto-threads", cryptoThreads, 1, 256);
        UsageError.check("--crypto-queue", cryptoQueue, 0, 100_000);
        UsageError.check("--max-derivations", maxDerivations, 0, 1024);
        if (store == null || memberCost == null) {
            throw new IllegalArgumentException("store and member cost are required");
        }
        if (memberCost.memoryBytes() > ScryptCost.LESSON.memoryBytes() || memberCost.p() > 64) {
            throw UsageError.invalid("--member-cost",
                    "at most the lesson's memory (128 * r * N <= 64 MiB) and p <= 64", memberCost.label());
        }
        UsageError.check("--session-ttl", sessionTtl == null ? 0 : sessionTtl.toSeconds(), 1,
                MAX_SESSION_TTL.toSeconds());
        UsageError.check("--worker-id", workerId, 0, 1024);
        if (scrypt == null) {
            throw new IllegalArgumentException("scrypt provider is required");
        }
    }

    /** Options with the default scrypt provider. */
    public ServeOptions(String host, int port, ThreadModel threads, int platformThreads, int carriers,
                        int cryptoThreads, int cryptoQueue, int maxDerivations,
                        StoreUri store, ScryptCost memberCost, Duration sessionTtl, int workerId) {
        this(host, port, threads, platformThreads, carriers, cryptoThreads, cryptoQueue, maxDerivations,
                store, memberCost, sessionTtl, workerId, ScryptProvider.DEFAULT);
    }

    /** Options of a server that serves alone, with process-local state, the lesson's member cost and half-hour sessions. */
    public ServeOptions(String host, int port, ThreadModel threads, int platformThreads, int carriers,
                        int cryptoThreads, int cryptoQueue, int maxDerivations) {
        this(host, port, threads, platformThreads, carriers, cryptoThreads, cryptoQueue, maxDerivations,
                StoreUri.parse("local"), ScryptCost.LESSON, Duration.ofMinutes(30));
    }

    /** Options of a server that serves alone (not a cluster worker). */
    public ServeOptions(String host, int port, ThreadModel threads, int platformThreads, int carriers,
                        int cryptoThreads, int cryptoQueue, int maxDerivations,
                        StoreUri store, ScryptCost memberCost, Duration sessionTtl) {
        this(host, port, threads, platformThreads, carriers, cryptoThreads, cryptoQueue, maxDerivations,
                store, memberCost, sessionTtl, 0);
    }

    /** The same options for worker {@code id} of a cluster. */
    public ServeOptions asWorker(int id) {
        return new ServeOptions(host, port, threads, platformThreads, carriers, cryptoThreads, cryptoQueue,
                maxDerivations, store, memberCost, sessionTtl, id, scrypt);
    }

    /** The same options with another scrypt provider. */
    public ServeOptions withScrypt(ScryptProvider provider) {
        return new ServeOptions(host, port, threads, platformThreads, carriers, cryptoThreads, cryptoQueue,
                maxDerivations, store, memberCost, sessionTtl, workerId, provider);
    }

    /** The same options for a server of its own (no worker id) listening on {@code host}:{@code port}. */
    public ServeOptions alone(String host, int port) {
        return new ServeOptions(host, port, threads, platformThreads, carriers, cryptoThreads, cryptoQueue,
                maxDerivations, store, memberCost, sessionTtl, 0, scrypt);
    }

    /**
     * Whether the listener binds with {@code SO_REUSEPORT}. Only cluster workers do: they must share one port, while
     * a server started alone on a taken port should fail loudly instead of silently taking half of its traffic.
     */
    public boolean reusePort() {
        return workerId > 0;
    }

    /** The defaults: the lesson's single machine, virtual threads, one carrier and one crypto thread per core. */
    public static ServeOptions defaults() {
        int cores = Runtime.getRuntime().availableProcessors();
        return new ServeOptions("127.0.0.1", 8430, ThreadModel.VIRTUAL, 200, cores, cores, 64, 0);
    }
}
