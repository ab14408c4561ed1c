package dev.loanruntime.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.loanruntime.store.StoreUri;

/**
 * Gives a test class a real PostgreSQL database of its own: {@code @RegisterExtension static final TestPostgres PG =
 * new TestPostgres();}, then {@code PG.uri()} or {@code PG.storeArgument()}. The server is one {@link PostgresProcess}
 * that this test run starts on first use and stops at its end; each class gets a database {@code loan_N}. Without
 * PostgreSQL the class is skipped with a message, except under {@code CI=true}, where it fails.
 */
public final class TestPostgres implements BeforeAllCallback {
    private static final AtomicInteger NEXT = new AtomicInteger(1);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TestPostgres.class);
    private PostgresProcess server;
    private String database;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        server = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(OwnedServer.class, key -> OwnedServer.start(), OwnedServer.class).server;
        database = "loan_" + NEXT.getAndIncrement();
        server.execute("postgres", "DROP DATABASE IF EXISTS " + database, "CREATE DATABASE " + database);
    }

    /** The store on the class's database (the password from {@link PostgresProcess#environment()}). */
    public StoreUri.Postgres uri() {
        return server.uri(database);
    }

    /** The {@code --store} argument for the class's database; the child needs {@link PostgresProcess#environment()}. */
    public String storeArgument() {
        return uri().toString();
    }

    /** Drops the store's tables: the next store opened on the database starts empty. */
    public void empty() throws SQLException {
        server.execute(database, "DROP TABLE IF EXISTS loan_counters, loan_sessions");
    }

    public PostgresProcess server() {
        return server;
    }

    /** The server this test run started; JUnit closes it (stops it by PID) when the run ends. */
    private record OwnedServer(PostgresProcess server, Path dir) implements ExtensionContext.Store.CloseableResource {
        static OwnedServer start() {
            try {
                PostgresProcess.requireInstalled();
                Path dir = Files.createTempDirectory("loan-test-postgres");
                return new OwnedServer(PostgresProcess.start(dir), dir);
            } catch (IOException e) {
                throw new IllegalStateException("cannot start postgres: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() throws Exception {
            server.close();
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }
}
