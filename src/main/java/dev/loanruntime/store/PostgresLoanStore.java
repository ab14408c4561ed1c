package dev.loanruntime.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.metrics.IMetricsTracker;

/**
 * State in a PostgreSQL database that the processes of every machine share: the counter and the sessions are rows,
 * each operation one statement (the counter one {@code UPDATE ... RETURNING}), sessions expire by their
 * {@code expires_at}, on the database's clock. Connections come from a HikariCP pool of fixed size; a request waits
 * for one at most the pool's timeout, then gets {@link StoreUnavailableException} (503 {@code store_unavailable}).
 *
 * <p>JDBC and HikariCP directly, not Helidon's DbClient: the store is a blocking interface called on the request's
 * thread, and what it reports is the pool itself, HikariCP's own counts ({@link HikariPoolMXBean}) and each wait
 * for a connection (a {@code MetricsTrackerFactory}). DbClient 4.5 builds its {@code HikariDataSource} itself and
 * keeps it private (its {@code HikariConnectionPool}); it hands HikariCP's metrics out only through a Dropwizard
 * {@code MetricRegistry} ({@code helidon-dbclient-metrics-hikari}), a second metrics library, with neither hook. pgjdbc
 * does its I/O in Java, so a virtual thread parks while the database works and frees its carrier; so does one
 * waiting for a connection.
 *
 * <p>A database that does not answer at start-up only makes requests fail until it does (the schema is made on the
 * first connection); one that refuses the credentials stops the start, with the store's address (never the password).
 */
final class PostgresLoanStore implements LoanStore {
    /** pgjdbc's timeouts: a database that stopped answering fails the request instead of holding it. */
    private static final int CONNECT_TIMEOUT_S = 1;
    private static final int SOCKET_TIMEOUT_S = 15;
    /** Invalid password, invalid authorization, no such database, no such role: no request could ever succeed. */
    private static final Set<String> REFUSED = Set.of("28P01", "28000", "3D000");
    private static final String UNDEFINED_TABLE = "42P01";
    /** Any number, the same in every process: only one of them creates the schema at a time. */
    private static final long SCHEMA_LOCK = 0x4c6f616e;
    private static final String[] SCHEMA = {
            "CREATE TABLE IF NOT EXISTS loan_counters (name text PRIMARY KEY, value bigint NOT NULL)",
            "INSERT INTO loan_counters (name, value) VALUES ('loans', 0) ON CONFLICT DO NOTHING",
            "CREATE TABLE IF NOT EXISTS loan_sessions (session_key text PRIMARY KEY, member text NOT NULL, "
                    + "expires_at timestamptz NOT NULL)",
            "CREATE INDEX IF NOT EXISTS loan_sessions_expiry ON loan_sessions (expires_at)"};

    private final StoreUri.Postgres uri;
    private final HikariDataSource pool;
    private final LongAdder timeouts = new LongAdder();
    private volatile boolean schemaReady;

    private PostgresLoanStore(StoreUri.Postgres uri, StoreSettings settings) {
        this.uri = uri;
        HikariConfig config = new HikariConfig();
        config.setPoolName("loan-store");
        config.setJdbcUrl("jdbc:postgresql://" + uri.host() + ":" + uri.port() + "/" + uri.database()
                + "?connectTimeout=" + CONNECT_TIMEOUT_S + "&socketTimeout=" + SOCKET_TIMEOUT_S
                + "&ApplicationName=loan-runtime");
        config.setUsername(uri.user());
        config.setPassword(uri.auth().password());
        config.setMaximumPoolSize(settings.pool());
        config.setMinimumIdle(settings.pool());     // a fixed size, as HikariCP advises: the size is the bound
        config.setConnectionTimeout(settings.poolTimeout().toMillis());
        config.setInitializationFailTimeout(-1);    // a database down at start-up: start, and refuse until it is up
        config.setMetricsTrackerFactory((name, stats) -> new IMetricsTracker() {
            @Override
            public void recordConnectionAcquiredNanos(long nanos) {
                settings.poolWaits().accept(nanos);
            }

            @Override
            public void recordConnectionUsageMillis(long millis) {
                settings.poolHolds().accept(TimeUnit.MILLISECONDS.toNanos(millis));
            }

            @Override
            public void recordConnectionTimeout() {
                timeouts.increment();
            }
        });
        this.pool = new HikariDataSource(config);
    }

    /** Opens the pool and, when the database answers, makes the schema. Blocks on the network. */
    static PostgresLoanStore open(StoreUri.Postgres uri, StoreSettings settings) {
        PostgresLoanStore store = new PostgresLoanStore(uri, settings);
        try {
            store.ensureSchema();
        } catch (StoreUnavailableException e) {
            if (e.getCause() instanceof SQLException sql && sql.getSQLState() != null
                    && REFUSED.contains(sql.getSQLState())) {
                store.close();
                throw new IllegalStateException("store " + uri + " refused this server: " + sql.getMessage(), e);
            }
            System.getLogger(PostgresLoanStore.class.getName()).log(System.Logger.Level.WARNING,
                    () -> e.getMessage() + "; requests that need it get 503 until it answers");
        }
        return store;
    }

    @Override
    public long incrementLoans() {
        return query(c -> Sql.queryLong(c,
                "UPDATE loan_counters SET value = value + 1 WHERE name = 'loans' RETURNING value"));
    }

    @Override
    public long loans() {
        return query(c -> Sql.queryLong(c, "SELECT value FROM loan_counters WHERE name = 'loans'"));
    }

    @Override
    public void putSession(String key, String member, Duration ttl) {
        query(c -> {
            try (PreparedStatement sweep = c.prepareStatement("DELETE FROM loan_sessions WHERE expires_at <= now()");
                 PreparedStatement put = c.prepareStatement("INSERT INTO loan_sessions (session_key, member, "
                         + "expires_at) VALUES (?, ?, now() + make_interval(secs => ?)) ON CONFLICT (session_key) DO "
                         + "UPDATE SET member = EXCLUDED.member, expires_at = EXCLUDED.expires_at")) {
                sweep.executeUpdate();
                put.setString(1, key);
                put.setString(2, member);
                put.setDouble(3, ttl.toMillis() / 1000.0);
                put.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public Optional<String> sessionMember(String key) {
        return query(c -> {
            try (PreparedStatement get = c.prepareStatement(
                    "SELECT member FROM loan_sessions WHERE session_key = ? AND expires_at > now()")) {
                get.setString(1, key);
                try (ResultSet rs = get.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.<String>empty();
                }
            }
        });
    }

    @Override
    public void removeSession(String key) {
        query(c -> Sql.update(c, "DELETE FROM loan_sessions WHERE session_key = ?", key));
    }

    /**
     * Asks the database over a pooled connection, unless every connection is in use: then the database is answering
     * them, and a check that queued for one would fail after the pool's timeout and take a busy server out of its
     * balancer, which moves the same load onto the others.
     */
    @Override
    public void ping() {
        if (saturated()) {
            return;
        }
        query(c -> Sql.queryLong(c, "SELECT 1"));
    }

    /** Every connection of the pool in use: a query now would wait for one. Any thread; does not block. */
    boolean saturated() {
        HikariPoolMXBean bean = pool.getHikariPoolMXBean();
        return bean != null && bean.getIdleConnections() == 0
                && bean.getActiveConnections() >= pool.getMaximumPoolSize();
    }

    @Override
    public Optional<Pool> pool() {
        return Optional.of(new Pool() {
            @Override
            public Stats stats() {
                HikariPoolMXBean bean = pool.getHikariPoolMXBean();
                return new Stats(pool.getMaximumPoolSize(), bean.getActiveConnections(), bean.getIdleConnections(),
                        bean.getThreadsAwaitingConnection(), timeouts.sum(), pool.getConnectionTimeout());
            }

            @Override
            public void sleep(int ms) {
                query(c -> {
                    try (PreparedStatement sleep = c.prepareStatement("SELECT pg_sleep(?)")) {
                        sleep.setDouble(1, ms / 1000.0);
                        sleep.executeQuery().close();
                    }
                    return null;
                });
            }
        });
    }

    @Override
    public String describe() {
        return uri.toString();
    }

    @Override
    public void close() {
        pool.close();
    }

    /** Runs one operation on a pooled connection; a database that does not answer, or no connection in time, is 503. */
    private <T> T query(Operation<T> operation) {
        if (!schemaReady) {
            ensureSchema();
        }
        try (Connection connection = pool.getConnection()) {
            return operation.run(connection);
        } catch (SQLTransientConnectionException e) {
            if (e.getCause() != null) {     // the pool could not connect: the database is down or unreachable
                throw new StoreUnavailableException(uri.toString(), e.getCause());
            }
            throw new StoreUnavailableException(uri.toString(), "no connection of the pool's "
                    + pool.getMaximumPoolSize() + " came free within " + pool.getConnectionTimeout() + " ms");
        } catch (SQLException e) {
            if (unavailable(e)) {
                throw new StoreUnavailableException(uri.toString(), e);
            }
            if (UNDEFINED_TABLE.equals(e.getSQLState())) {
                schemaReady = false;    // a table dropped under the server: made again on the next call
            }
            throw new IllegalStateException("store " + uri + " failed: " + e.getMessage(), e);  // a 500: a bug
        }
    }

    /**
     * The database cannot answer now, and may later: a connection lost or refused (SQLSTATE class 08), out of
     * resources (53), shut down or a statement cancelled by an operator or a timeout (57); pgjdbc's I/O errors carry
     * 08 too. Anything else is the query's own fault and a 500.
     */
    private static boolean unavailable(SQLException e) {
        String state = e.getSQLState();
        return state == null || state.startsWith("08") || state.startsWith("53") || state.startsWith("57");
    }

    /** Creates the tables once, under a lock that makes the processes that start together take turns. */
    private void ensureSchema() {
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT pg_advisory_xact_lock(" + SCHEMA_LOCK + ")");
                for (String sql : SCHEMA) {
                    statement.execute(sql);
                }
                connection.commit();
            } catch (SQLException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
            schemaReady = true;
        } catch (SQLException e) {
            throw new StoreUnavailableException(uri.toString(), e);
        }
    }


    @FunctionalInterface
    private interface Operation<T> {
        T run(Connection connection) throws SQLException;
    }
}
