package dev.loanruntime.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

import dev.loanruntime.store.StoreUri;

/**
 * A PostgreSQL server that a test owns, in a directory of its own, on 127.0.0.1 and a free port outside the ephemeral
 * range, with a password for the {@code postgres} user (scram-sha-256 over TCP), started as the experiments start
 * theirs ({@code experiments/lib/postgres-server}: as the {@code postgres} user when root; the process is the
 * server). Stopped by PID: SIGINT (a fast shutdown) and SIGKILL after 10 s. Started again on the same port and
 * directory. Always {@link #close()} it.
 */
public final class PostgresProcess implements AutoCloseable {
    /** The password of the {@code postgres} user of every test server: a test secret, not shown in URIs. */
    public static final String PASSWORD = "loan-test-pw";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** The one way the project starts a PostgreSQL server of its own, the experiments' too. */
    private static final Path SCRIPT = Path.of("experiments/lib/postgres-server");
    private final Path dir;
    private final int port;
    private final Path log;
    private Process process;

    private PostgresProcess(Path dir, int port, Path log) {
        this.dir = dir;
        this.port = port;
        this.log = log;
    }

    /**
     * The directory of PostgreSQL's server programs (the newest under /usr/lib/postgresql), or, when there is none,
     * skips the calling test with a message; under {@code CI=true} it fails instead, as the PostgreSQL tests must run.
     */
    public static Path requireInstalled() {
        Optional<Path> bin = binaries();
        if (bin.isPresent()) {
            return bin.get();
        }
        String why = "no PostgreSQL for the tests: /usr/lib/postgresql/*/bin/initdb is missing";
        if ("true".equals(System.getenv("CI"))) {
            throw new IllegalStateException(why + " (CI=true: PostgreSQL tests must run)");
        }
        String message = "SKIPPED: " + why + " (install the Debian package postgresql)";
        System.err.println(message);
        Assumptions.abort(message);
        return null;
    }

    private static Optional<Path> binaries() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("postgres")))
                    .max(Comparator.comparingInt(b -> version(b.getParent().getFileName().toString())));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static int version(String name) {
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Makes a database cluster in {@code dir} and starts its server; skips the test when PostgreSQL is missing. */
    public static PostgresProcess start(Path dir) throws IOException, InterruptedException {
        requireInstalled();
        run(List.of(SCRIPT.toString(), "init", dir.toString(), PASSWORD), dir.resolve("init.log"));
        PostgresProcess server = new PostgresProcess(dir, Ports.freeOutsideEphemeralRange(),
                dir.resolve("postgres.log"));
        server.startAgain();
        return server;
    }

    /** Starts the server again on the same port and data, after {@link #stop()}; waits until it answers. */
    public void startAgain() throws IOException, InterruptedException {
        // the script becomes the server (exec): this process's PID is the server's
        process = new ProcessBuilder(SCRIPT.toString(), "run", dir.toString(), Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!answers()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("postgres exited with " + process.exitValue() + ":\n" + tail());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("postgres did not answer on port " + port + " within "
                        + START_TIMEOUT + ":\n" + tail());
            }
            Thread.sleep(100);
        }
    }

    /** A fast shutdown (SIGINT: sessions end, the server exits), by PID; SIGKILL after 10 s. */
    public void stop() throws InterruptedException, IOException {
        if (process == null || !process.isAlive()) {
            return;
        }
        new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** A {@code postgresql://} store on {@code database} (which must exist), the password from the environment. */
    public StoreUri.Postgres uri(String database) {
        return (StoreUri.Postgres) StoreUri.parse("postgresql://postgres@127.0.0.1:" + port + "/" + database,
                environment());
    }

    /** What a process needs in its environment to log in: {@code LOAN_STORE_PASSWORD}. */
    public static Map<String, String> environment() {
        return Map.of("LOAN_STORE_PASSWORD", PASSWORD);
    }

    /** Runs {@code sql} in {@code database}, autocommit, as {@code postgres}. */
    public void execute(String database, String... sql) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database,
                "postgres", PASSWORD);
             Statement statement = c.createStatement()) {
            for (String s : sql) {
                statement.execute(s);
            }
        }
    }

    /**
     * The pid of the backend (the server process of one connection) that runs a statement containing {@code text}
     * in {@code database}, or 0 when none does now.
     */
    public long backendRunning(String database, String text) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database,
                "postgres", PASSWORD);
             PreparedStatement find = c.prepareStatement("SELECT pid FROM pg_stat_activity WHERE state = 'active' "
                     + "AND pid <> pg_backend_pid() AND position(? in query) > 0")) {
            find.setString(1, text);
            try (ResultSet found = find.executeQuery()) {
                return found.next() ? found.getLong(1) : 0;
            }
        }
    }

    /** Whether the server takes a connection now. */
    public boolean answers() {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port
                + "/postgres?connectTimeout=1", "postgres", PASSWORD)) {
            return c.isValid(1);
        } catch (SQLException e) {
            return false;
        }
    }

    private String tail() throws IOException {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }

    @Override
    public void close() throws IOException {
        try {
            stop();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static void run(List<String> command, Path output) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + Files.readString(output));
        }
    }
}
