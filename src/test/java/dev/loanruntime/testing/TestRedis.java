package dev.loanruntime.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.loanruntime.store.StoreUri;

/**
 * Gives a test class a real Redis database of its own: {@code @RegisterExtension static final TestRedis REDIS = new
 * TestRedis();}, then {@code REDIS.database()} from any test or lifecycle method. The server is {@code LOAN_TEST_REDIS} (e.g. {@code redis://127.0.0.1:6390}) when set, else a
 * {@code redis-server} this test run starts once and stops at the end. Without either, the class is skipped with a
 * message that says so, except when {@code CI=true}: there a missing Redis fails the run.
 */
public final class TestRedis implements BeforeAllCallback {
    /** Database 0 is left alone; each test class gets the next of 1..15 and empties it first. */
    private static final AtomicInteger NEXT_DATABASE = new AtomicInteger(1);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TestRedis.class);

    private Database database;

    /** One logical database of the test Redis. */
    public record Database(StoreUri.Redis uri) {
        /** Removes every key of this database. */
        public void flush() throws IOException {
            List<Object> replies = Resp.call(uri.host(), uri.port(), null,
                    List.of(List.of("SELECT", Integer.toString(uri.database())), List.of("FLUSHDB")));
            if (!replies.equals(List.of("+OK", "+OK"))) {
                throw new IOException("FLUSHDB failed: " + replies);
            }
        }

        /** The {@code --store} argument for this database. */
        public String storeArgument() {
            return uri.toString();
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        StoreUri.Redis server = server(context);
        int number = NEXT_DATABASE.getAndIncrement() % 15 + 1;
        database = new Database(new StoreUri.Redis(server.host(), server.port(), number));
        database.flush();
    }

    /** The test class's database. */
    public Database database() {
        return database;
    }

    /**
     * Skips the calling test (with a message) when {@code redis-server} is not on the PATH; fails it instead when
     * {@code CI=true}, where the Redis tests must run.
     */
    public static void assumeRedisServerInstalled() {
        assumeRedisServerInstalled("");
    }

    private static void assumeRedisServerInstalled(String context) {
        RedisProcess.require("redis-server", "no Redis for the tests: " + context,
                "install redis-server or set LOAN_TEST_REDIS");
    }

    private static StoreUri.Redis server(ExtensionContext context) throws IOException {
        String configured = System.getenv("LOAN_TEST_REDIS");
        if (configured != null && !configured.isBlank()) {
            StoreUri.Redis uri = (StoreUri.Redis) StoreUri.parse(configured);
            if (!Resp.answers(uri.host(), uri.port())) {
                throw new IllegalStateException("LOAN_TEST_REDIS=" + configured + " does not answer PING");
            }
            return uri;
        }
        assumeRedisServerInstalled("LOAN_TEST_REDIS is not set and ");
        OwnedServer owned = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(OwnedServer.class, key -> OwnedServer.start(), OwnedServer.class);
        return owned.server.uri(0);
    }

    /** The redis-server this test run started; JUnit closes it (kills it by PID) when the run ends. */
    private record OwnedServer(RedisProcess server, Path dir) implements ExtensionContext.Store.CloseableResource {
        static OwnedServer start() {
            try {
                Path dir = Files.createTempDirectory("loan-test-redis");
                return new OwnedServer(RedisProcess.server(dir, null), dir);
            } catch (IOException e) {
                throw new IllegalStateException("cannot start redis-server: " + e.getMessage(), e);
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(dir);
        }
    }
}
