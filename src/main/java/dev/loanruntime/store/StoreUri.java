package dev.loanruntime.store;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Where the state that must outlive a request lives: {@code local} (this process's memory), {@code sqlite:PATH}
 * (a file shared by the processes of one machine) or {@code redis://HOST:PORT[/DB]} (a server shared by
 * processes on many machines). {@link #parse} names the bad value and the accepted forms.
 */
public sealed interface StoreUri permits StoreUri.Local, StoreUri.Sqlite, StoreUri.Redis {
    /** The accepted forms, for error messages and help. */
    String FORMS = "local, sqlite:PATH or redis://HOST:PORT[/DB]";

    /** Opens the store. May block (connects, creates a file and its schema). */
    LoanStore open();

    /** Parses one of {@link #FORMS}. */
    static StoreUri parse(String value) {
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
        if (text.startsWith("redis://")) {
            return Redis.parse(value, text);
        }
        throw bad(value, "unknown store");
    }

    private static IllegalArgumentException bad(String value, String why) {
        return new IllegalArgumentException("expected " + FORMS + " but was '" + value + "' (" + why + ")");
    }

    /** This process's memory: every process has its own state. */
    record Local() implements StoreUri {
        @Override
        public LoanStore open() {
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
        public LoanStore open() {
            return SqliteLoanStore.open(path);
        }

        @Override
        public String toString() {
            return "sqlite:" + path;
        }
    }

    /** A Redis server; {@code database} is the logical database number (SELECT). */
    record Redis(String host, int port, int database) implements StoreUri {
        static final int DEFAULT_PORT = 6379;

        static Redis parse(String value, String text) {
            URI uri;
            try {
                uri = new URI(text);
            } catch (URISyntaxException e) {
                throw bad(value, "not a URI");
            }
            if (uri.getHost() == null || uri.getUserInfo() != null || uri.getQuery() != null
                    || uri.getFragment() != null) {
                throw bad(value, "redis needs HOST:PORT and nothing else but an optional /DB");
            }
            int port = uri.getPort() == -1 ? DEFAULT_PORT : uri.getPort();
            String path = uri.getPath() == null ? "" : uri.getPath();
            int database = 0;
            if (!path.isEmpty() && !path.equals("/")) {
                try {
                    database = Integer.parseInt(path.substring(1));
                } catch (NumberFormatException e) {
                    throw bad(value, "DB must be a database number");
                }
                if (database < 0) {
                    throw bad(value, "DB must be a database number");
                }
            }
            if (port < 1 || port > 65_535) {
                throw bad(value, "PORT must be from 1 to 65535");
            }
            return new Redis(uri.getHost(), port, database);
        }

        @Override
        public LoanStore open() {
            return RedisLoanStore.open(this);
        }

        @Override
        public String toString() {
            return "redis://" + host + ":" + port + "/" + database;
        }
    }
}
