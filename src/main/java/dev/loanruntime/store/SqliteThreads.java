package dev.loanruntime.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A few platform threads, each with its own SQLite connection, that run the store's statements. Callers (virtual
 * threads) park while they wait, so SQLite's native calls and lock waits never hold a carrier. A statement that has
 * not finished within the busy timeout plus a margin is reported unavailable; one that has not started yet is
 * cancelled, so it cannot count after its caller was refused.
 */
final class SqliteThreads implements AutoCloseable {
    static final int THREADS = 4;
    private static final System.Logger LOGGER = System.getLogger(SqliteThreads.class.getName());
    private final String store;
    private final Opener opener;
    private final Duration wait;
    private final ExecutorService executor;
    private final ThreadLocal<Connection> connection = new ThreadLocal<>();

    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    SqliteThreads(String store, Opener opener, Duration busyTimeout) {
        this.store = store;
        this.opener = opener;
        this.wait = busyTimeout.plusSeconds(1);
        ThreadFactory threads = Thread.ofPlatform().daemon().name("sqlite-", 1).factory();
        this.executor = Executors.newFixedThreadPool(THREADS, task -> threads.newThread(() -> {
            try {
                task.run();
            } finally {
                closeOwnConnection();
            }
        }));
    }

    /** Runs {@code work} on a store thread and waits for it; may block up to the busy timeout plus one second. */
    <T> T run(Work<T> work) {
        return run(work, wait);
    }

    /** Runs {@code work} on a store thread and waits for it at most {@code timeout}. */
    <T> T run(Work<T> work, Duration timeout) {
        Future<T> result = executor.submit(() -> work.run(ownConnection()));
        try {
            return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            LOGGER.log(System.Logger.Level.WARNING, () -> store + ": " + e.getCause().getMessage());
            throw new StoreUnavailableException(store, e.getCause());
        } catch (TimeoutException e) {
            result.cancel(false);
            throw new StoreUnavailableException(store,
                    new TimeoutException("no answer within " + timeout.toMillis() + " ms"));
        } catch (InterruptedException e) {
            result.cancel(false);
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(store, e);
        }
    }

    private Connection ownConnection() throws SQLException {
        Connection own = connection.get();
        if (own == null || own.isClosed()) {
            own = opener.open();
            connection.set(own);
        }
        return own;
    }

    private void closeOwnConnection() {
        Connection own = connection.get();
        if (own != null) {
            try {
                own.close();
            } catch (SQLException e) {
                LOGGER.log(System.Logger.Level.DEBUG, () -> "closing " + store + ": " + e.getMessage());
            }
            connection.remove();
        }
    }

    @Override
    public void close() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
