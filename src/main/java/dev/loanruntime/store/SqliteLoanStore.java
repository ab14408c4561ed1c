package dev.loanruntime.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;

import org.sqlite.SQLiteConfig;

/**
 * State in an SQLite file that every process on this machine opens: the counter and the sessions are rows, and
 * SQLite's file locks serialize the writers of all processes. The database runs in WAL mode (readers do not wait
 * for the writer) with a busy timeout (a writer waits for another process's write lock instead of failing).
 *
 * <p>Each operation is one statement in its own transaction, run on {@link SqliteThreads}: a JDBC call into SQLite's
 * native code, and its busy wait, would hold a virtual thread's carrier. The calling thread parks meanwhile.
 */
final class SqliteLoanStore implements LoanStore {
    /** How long a writer waits for another process's lock before the request is refused. */
    static final Duration BUSY_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration OPEN_TIMEOUT = Duration.ofSeconds(60);
    private static final String[] SCHEMA = {
            "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
            "INSERT OR IGNORE INTO counters (name, value) VALUES ('loans', 0)",
            "CREATE TABLE IF NOT EXISTS sessions (session_key TEXT PRIMARY KEY, member TEXT NOT NULL, "
                    + "expires_at INTEGER NOT NULL)",
            "CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at)"};
    private final Path path;
    private final SqliteThreads threads;

    private SqliteLoanStore(Path path, SqliteThreads threads) {
        this.path = path;
        this.threads = threads;
    }

    /** Opens (and on first use creates) the database. Blocks; fails when the file cannot be created or opened. */
    static SqliteLoanStore open(Path path) {
        Path absolute = path.toAbsolutePath();
        SqliteThreads threads = new SqliteThreads("sqlite:" + path, () -> connect(absolute), BUSY_TIMEOUT);
        SqliteLoanStore store = new SqliteLoanStore(path, threads);
        try {
            // Start-up only: loading the native library and several processes creating one file may take a while.
            threads.run(SqliteLoanStore::createSchema, OPEN_TIMEOUT);
        } catch (RuntimeException e) {
            threads.close();
            throw e;
        }
        return store;
    }

    private static Connection connect(Path path) throws SQLException {
        try {
            if (path.getParent() != null) {
                Files.createDirectories(path.getParent());
            }
        } catch (java.io.IOException e) {
            throw new SQLException("cannot create the directory of " + path + ": " + e.getMessage(), e);
        }
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout((int) BUSY_TIMEOUT.toMillis());
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        // NORMAL in WAL mode: a commit survives the crash of any process; only a power loss may undo the last ones.
        config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
        return config.createConnection("jdbc:sqlite:" + path);
    }

    private static Void createSchema(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String sql : SCHEMA) {
                statement.executeUpdate(sql);
            }
        }
        return null;
    }

    @Override
    public long incrementLoans() {
        // One statement, one transaction: the read and the write happen under the same write lock.
        return threads.run(c -> Sql.queryLong(c,
                "UPDATE counters SET value = value + 1 WHERE name = 'loans' RETURNING value"));
    }

    @Override
    public long loans() {
        return threads.run(c -> Sql.queryLong(c, "SELECT value FROM counters WHERE name = 'loans'"));
    }

    @Override
    public void putSession(String key, String member, Duration ttl) {
        long now = System.currentTimeMillis();
        threads.run(c -> {
            try (PreparedStatement sweep = c.prepareStatement("DELETE FROM sessions WHERE expires_at <= ?");
                 PreparedStatement put = c.prepareStatement(
                         "INSERT OR REPLACE INTO sessions (session_key, member, expires_at) VALUES (?, ?, ?)")) {
                sweep.setLong(1, now);
                sweep.executeUpdate();
                put.setString(1, key);
                put.setString(2, member);
                put.setLong(3, now + ttl.toMillis());
                put.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public Optional<String> sessionMember(String key) {
        return threads.run(c -> {
            try (PreparedStatement get = c.prepareStatement(
                    "SELECT member FROM sessions WHERE session_key = ? AND expires_at > ?")) {
                get.setString(1, key);
                get.setLong(2, System.currentTimeMillis());
                try (ResultSet rs = get.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.<String>empty();
                }
            }
        });
    }

    @Override
    public void removeSession(String key) {
        threads.run(c -> Sql.update(c, "DELETE FROM sessions WHERE session_key = ?", key));
    }

    @Override
    public void ping() {
        loans();
    }

    @Override
    public String describe() {
        return "sqlite:" + path;
    }

    @Override
    public void close() {
        threads.close();
    }

}
