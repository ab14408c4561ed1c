package dev.loanruntime.store;

/** A store's pool of database connections: its counts now, and a wait that the database itself does. */
public interface Pool {
    /**
     * The pool now, from HikariCP's own counts.
     *
     * @param size      connections it holds at most
     * @param active    connections in use
     * @param idle      connections free
     * @param waiting   threads waiting for a connection
     * @param timeouts  waits that passed the timeout so far (each a 503)
     * @param timeoutMs the longest a request waits for a connection
     */
    record Stats(int size, int active, int idle, int waiting, long timeouts, long timeoutMs) {
    }

    /** Any thread; does not block. */
    Stats stats();

    /**
     * Waits {@code ms} milliseconds in the database ({@code SELECT pg_sleep}) over a pooled connection: the calling
     * thread waits for a connection, then for the database. Blocks it.
     *
     * @throws StoreUnavailableException when no connection came free in time or the database does not answer
     */
    void sleep(int ms);
}
