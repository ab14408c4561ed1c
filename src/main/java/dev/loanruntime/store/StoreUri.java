package dev.loanruntime.store;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where the state that must outlive a request lives: {@code local} (this process's memory), {@code sqlite:PATH}
 * (a file shared by the processes of one machine), {@code redis://} or {@code rediss://} (a Redis server shared by
 * processes on many machines; {@code rediss} speaks TLS), {@code redis-sentinel://} (a Redis master found through
 * Sentinels, followed after a failover) or {@code postgresql://} (a PostgreSQL database, through a connection pool).
 * {@link #parse} names the bad value and the accepted forms.
 *
 * <p>{@link #toString()} is the form to print and to pass on a command line: it never holds a password. A child
 * process gets the passwords through {@link #environment()}.
 */
public sealed interface StoreUri permits StoreUri.Local, StoreUri.Sqlite, StoreUri.Redis, StoreUri.Sentinel,
        StoreUri.Postgres {
    /** The accepted forms, for error messages and help. */
    String FORMS = "local, sqlite:PATH, redis[s]://[USER@]HOST:PORT[/DB], "
            + "redis-sentinel://[USER@]HOST:PORT[,HOST:PORT...]/MASTER[/DB] or postgresql://[USER@]HOST:PORT/DB "
            + "(user postgres unless given), with passwords in " + StoreAuth.PASSWORD_ENV + " and "
            + StoreAuth.SENTINEL_PASSWORD_ENV;

    /**
     * Opens the store. Writes are acknowledged only once {@code settings.replicas()} replicas confirm them (Redis
     * {@code WAIT}); only Redis stores accept more than 0; a PostgreSQL store opens its connection pool. May block
     * (connects, creates a file and its schema).
     *
     * @throws IllegalStateException when the store refuses this process (a wrong password) or cannot be found
     */
    LoanStore open(StoreSettings settings);

    /** Opens the store with {@code replicas} and the default pool. */
    default LoanStore open(int replicas) {
        return open(StoreSettings.replicas(replicas));
    }

    /** Opens the store with {@link #defaultReplicas()}. */
    default LoanStore open() {
        return open(defaultReplicas());
    }

    /** Whether {@code --store-pool} means anything for this store (only PostgreSQL has a connection pool). */
    default boolean pooled() {
        return false;
    }

    /** Replicas that must confirm a write unless told otherwise: 1 behind Sentinel, 0 elsewhere. */
    default int defaultReplicas() {
        return 0;
    }

    /** Whether {@code --store-replicas} above 0 means anything for this store (only Redis has replicas). */
    default boolean replicates() {
        return false;
    }

    /** Environment variables that carry this store's passwords to a child process; empty when there are none. */
    default Map<String, String> environment() {
        return Map.of();
    }

    /** Parses one of {@link #FORMS}; passwords not in the value come from the process's environment. */
    static StoreUri parse(String value) {
        return parse(value, System.getenv());
    }

    /** Parses one of {@link #FORMS}, with {@code env} standing for the environment. */
    static StoreUri parse(String value, Map<String, String> env) {
        if (value == null || value.isBlank()) {
            throw bad(value, "it is empty");
        }
        String text = value.trim();
        if (text.equals("local")) {
            return new Local();
        }
        if (text.startsWith("sqlite:")) {
            return Sqlite.parse(value, text.substring("sqlite:".length()));
        }
        if (text.startsWith("redis://") || text.startsWith("rediss://")) {
            return StoreUris.redis(value, text, env);
        }
        if (text.startsWith("redis-sentinel://")) {
            return StoreUris.sentinel(value, text, env);
        }
        if (text.startsWith("postgresql://")) {
            return StoreUris.postgres(value, text, env);
        }
        throw bad(value, "unknown store");
    }

    /** The error for a bad {@code value}; the value is shown with any password in it masked. */
    static IllegalArgumentException bad(String value, String why) {
        return new IllegalArgumentException("expected " + FORMS + " but was '" + StoreUris.masked(value) + "' ("
                + why + ")");
    }

    /** This process's memory: every process has its own state. */
    record Local() implements StoreUri {
        @Override
        public LoanStore open(StoreSettings settings) {
            return new LocalLoanStore();
        }

        @Override
        public String toString() {
            return "local";
        }
    }

    /** An SQLite database file, created with its schema on first use. */
    record Sqlite(Path path) implements StoreUri {
        static Sqlite parse(String value, String rest) {
            if (rest.isBlank()) {
                throw bad(value, "sqlite needs a file path");
            }
            try {
                return new Sqlite(Path.of(rest));
            } catch (InvalidPathException e) {
                throw bad(value, "not a file path");
            }
        }

        @Override
        public LoanStore open(StoreSettings settings) {
            return SqliteLoanStore.open(path);
        }

        @Override
        public String toString() {
            return "sqlite:" + path;
        }
    }

    /** A Redis server; {@code database} is the logical database number (SELECT); {@code tls} for {@code rediss}. */
    record Redis(String host, int port, int database, boolean tls, StoreAuth auth) implements StoreUri {
        static final int DEFAULT_PORT = 6379;

        /** A server without TLS or credentials. */
        public Redis(String host, int port, int database) {
            this(host, port, database, false, StoreAuth.NONE);
        }

        @Override
        public LoanStore open(StoreSettings settings) {
            return RedisConnections.open(this, settings.replicas());
        }

        @Override
        public boolean replicates() {
            return true;
        }

        @Override
        public Map<String, String> environment() {
            return auth.environment();
        }

        @Override
        public String toString() {
            return (tls ? "rediss://" : "redis://") + auth.shownUser() + host + ":" + port + "/" + database;
        }
    }

    /**
     * A Redis master that Sentinels watch: asked of {@code sentinels} by its name {@code master}, and followed when
     * they fail it over to a replica. {@code auth} logs in to the master (and its replicas), {@code sentinelPassword}
     * (null for none) to the Sentinels.
     */
    record Sentinel(List<Address> sentinels, String master, int database, StoreAuth auth, String sentinelPassword)
            implements StoreUri {
        static final int DEFAULT_PORT = 26379;

        public Sentinel {
            sentinels = List.copyOf(sentinels);
        }

        @Override
        public LoanStore open(StoreSettings settings) {
            return RedisConnections.open(this, settings.replicas());
        }

        /** Behind Sentinel a failover is expected: a write counts once one replica holds it too. */
        @Override
        public int defaultReplicas() {
            return 1;
        }

        @Override
        public boolean replicates() {
            return true;
        }

        @Override
        public Map<String, String> environment() {
            Map<String, String> env = new HashMap<>(auth.environment());
            if (sentinelPassword != null) {
                env.put(StoreAuth.SENTINEL_PASSWORD_ENV, sentinelPassword);
            }
            return Map.copyOf(env);
        }

        @Override
        public String toString() {
            return "redis-sentinel://" + auth.shownUser()
                    + sentinels.stream().map(Address::toString).collect(Collectors.joining(","))
                    + "/" + master + "/" + database;
        }
    }

    /**
     * A PostgreSQL database that every process of every machine opens: the counter and the sessions are rows, each
     * operation one statement, over a pool of connections ({@code --store-pool}); {@code auth} logs in (no user:
     * {@code postgres}).
     */
    record Postgres(String host, int port, String database, StoreAuth auth) implements StoreUri {
        static final int DEFAULT_PORT = 5432;

        @Override
        public LoanStore open(StoreSettings settings) {
            return PostgresLoanStore.open(this, settings);
        }

        @Override
        public boolean pooled() {
            return true;
        }

        @Override
        public Map<String, String> environment() {
            return auth.environment();
        }

        /** The user who logs in. */
        String user() {
            return auth.user() == null ? "postgres" : auth.user();
        }

        @Override
        public String toString() {
            return "postgresql://" + auth.shownUser() + host + ":" + port + "/" + database;
        }
    }

    /** One {@code HOST:PORT}. */
    record Address(String host, int port) {
        @Override
        public String toString() {
            return host + ":" + port;
        }
    }
}
