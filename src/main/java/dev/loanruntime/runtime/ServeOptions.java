package dev.loanruntime.runtime;

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
 * @param workerId        this process's id in a cluster (1..N), 0 when it serves alone
 */
public record ServeOptions(String host,
                           int port,
                           ThreadModel threads,
                           int platformThreads,
                           int carriers,
                           int cryptoThreads,
                           int cryptoQueue,
                           int maxDerivations,
                           int workerId) {

    public ServeOptions {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("Invalid value for option '--host': expected a host name or address but was '" + host + "'");
        }
        check("--port", port, 0, 65_535);
        check("--platform-threads", platformThreads, 1, 10_000);
        check("--carriers", carriers, 1, 256);
        check("--crypto-threads", cryptoThreads, 1, 256);
        check("--crypto-queue", cryptoQueue, 0, 100_000);
        check("--max-derivations", maxDerivations, 0, 1024);
        check("--worker-id", workerId, 0, 1024);
    }

    /** A server that serves alone (not a cluster worker). */
    public ServeOptions(String host, int port, ThreadModel threads, int platformThreads, int carriers,
                        int cryptoThreads, int cryptoQueue, int maxDerivations) {
        this(host, port, threads, platformThreads, carriers, cryptoThreads, cryptoQueue, maxDerivations, 0);
    }

    /** The same options for worker {@code id} of a cluster. */
    public ServeOptions asWorker(int id) {
        return new ServeOptions(host, port, threads, platformThreads, carriers, cryptoThreads, cryptoQueue,
                maxDerivations, id);
    }

    /**
     * Whether the listener binds with {@code SO_REUSEPORT}. Only cluster workers do: they must share one port, while
     * a server started alone on a taken port should fail loudly instead of silently taking half of its traffic.
     */
    public boolean reusePort() {
        return workerId > 0;
    }

    /** The defaults: the lesson's single machine, virtual threads, one carrier per core. */
    public static ServeOptions defaults() {
        return new ServeOptions("127.0.0.1", 8430, ThreadModel.VIRTUAL, 200,
                Runtime.getRuntime().availableProcessors(), 4, 64, 0);
    }

    private static void check(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("Invalid value for option '" + option + "': expected an integer from "
                    + min + " to " + max + " but was '" + value + "'");
        }
    }
}
