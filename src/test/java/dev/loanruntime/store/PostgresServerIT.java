package dev.loanruntime.store;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.PostgresProcess;
import dev.loanruntime.testing.ServerProcess;
import dev.loanruntime.testing.TestPostgres;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;

/** A server on a real PostgreSQL: its outages, its pool's bound, a wait in the database, its password. */
@Timeout(180)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class PostgresServerIT {
    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @Test
    void aDatabaseStoppedMidRunIs503AndTheServerRecoversWhenItIsBack(@TempDir Path dir) throws Exception {
        try (PostgresProcess db = PostgresProcess.start(dir)) {
            db.execute("postgres", "CREATE DATABASE loans");
            try (ServerProcess server = serve(db.uri("loans").toString());
                    Http http = new Http(server.baseUri())) {
                assertThat(http.get("/loan").status(), is(200));
                db.stop();
                unavailable(http.get("/loan"));
                assertThat(http.get("/observe/health/ready").status(), is(503));
                assertThat("the routes without the store still answer", http.get("/books").status(), is(200));
                db.startAgain();
                await("the server counts loans again once the database is back").atMost(Duration.ofSeconds(30))
                        .until(() -> http.get("/loan").status(), is(200));
                assertThat(http.get("/status").json().path("loanCounter").asLong(), is(2L));
            }
        }
    }

    @Test
    void aConnectionLostMidQueryIs503AndTheNextRequestGetsAFreshOne(@TempDir Path dir) throws Exception {
        try (PostgresProcess db = PostgresProcess.start(dir)) {
            db.execute("postgres", "CREATE DATABASE loans");
            try (ServerProcess server = serve(db.uri("loans").toString());
                    Http http = new Http(server.baseUri());
                    ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
                assertThat(http.get("/loan").status(), is(200));
                CompletableFuture<Http.Response> waiting = CompletableFuture.supplyAsync(
                        () -> http.get("/catalog/lookup?ms=10000&inside=db"), clients);
                long backend = await("the wait is in the database").atMost(Duration.ofSeconds(10))
                        .until(() -> db.backendRunning("loans", "pg_sleep"), pid -> pid > 0);
                // SIGKILL: the connection ends mid-query without a word from the server (SQLSTATE 08006); the
                // database restarts its other processes and is back in a moment
                ProcessHandle.of(backend).orElseThrow().destroyForcibly();
                unavailable(waiting.get(30, TimeUnit.SECONDS));
                await("loans are counted again").atMost(Duration.ofSeconds(30))
                        .until(() -> http.get("/loan").status(), is(200));
            }
        }
    }

    @Test
    void aRequestThatFindsNoConnectionWithinThePoolsTimeoutIs503WithRetryAfter() throws Exception {
        try (ServerProcess server = serve(PG.storeArgument(), "--store-pool", "1", "--store-pool-timeout", "250ms");
                Http http = new Http(server.baseUri());
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            CompletableFuture<Integer> holder = CompletableFuture.supplyAsync(
                    () -> http.get("/catalog/lookup?ms=3000&inside=db").status(), clients);
            await("the only connection is in use").atMost(Duration.ofSeconds(10))
                    .until(() -> pool(http).path("active").asInt(), is(1));
            Http.Response refused = http.get("/loan");
            unavailable(refused);
            // the refusal is the pool's timeout, counted as such
            assertThat(refused.body(), pool(http).path("timeouts").asLong(), greaterThanOrEqualTo(1L));
            // a busy pool is not a database that is down: readiness stays up, and a scrape queues for no connection
            Http.Response ready = http.get("/observe/health/ready");
            assertThat(ready.body(), ready.status(), is(200));
            assertThat(ready.took().toMillis(), lessThan(250L));
            Http.Response metrics = http.get("/observe/metrics");
            assertThat(metrics.took().toMillis(), lessThan(250L));
            assertThat(metrics.body(), containsString("loan_store_pool_active{scope=\"application\",} 1.0"));
            assertThat(metrics.body(), containsString("loan_counter{scope=\"application\",} NaN"));
            assertThat(metrics.body(), containsString("loan_store_pool_timeouts_total{scope=\"application\",} "));
            assertThat(metrics.body(), not(containsString("loan_store_pool_timeouts_total{scope=\"application\",} 0.0")));
            assertThat(holder.get(), is(200));
            assertThat(pool(http).path("timeouts").asLong(), greaterThanOrEqualTo(1L));
            // the holder held the connection for its 3 s wait in the database: Little's law's W
            await("the hold in a window").atMost(Duration.ofSeconds(5)).until(() -> http.get("/runtime").json()
                    .path("storePool").path("holdMs").path("sinceStart").path("maxMs").asDouble(),
                    greaterThanOrEqualTo(3000.0));
            assertThat(http.get("/loan").status(), is(200));
        }
    }

    @Test
    void waitsInTheDatabaseHoldNoCarrier() throws Exception {
        try (ServerProcess server = serve(PG.storeArgument(), "--carriers", "1", "--store-pool", "100");
                Http http = new Http(server.baseUri());
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            assertThat(http.get("/catalog/lookup?ms=1&inside=db").status(), is(200));
            // HikariCP opens its connections in the background after the start: all of them first
            await("the pool's hundred connections are open").atMost(Duration.ofSeconds(30))
                    .until(() -> pool(http).path("idle").asInt(), is(100));
            List<CompletableFuture<Integer>> waits = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                waits.add(CompletableFuture.supplyAsync(
                        () -> http.get("/catalog/lookup?ms=4000&inside=db").status(), clients));
            }
            await("the hundred waits are in the database").atMost(Duration.ofSeconds(20))
                    .until(() -> pool(http).path("active").asInt(), greaterThanOrEqualTo(90));
            // the one carrier is free: a light request takes a small share of a wait
            Http.Response books = http.get("/books");
            assertThat(books.status(), is(200));
            assertThat(books.took().toMillis(), lessThan(1000L));
            for (CompletableFuture<Integer> wait : waits) {
                assertThat(wait.get(), is(200));
            }
        }
    }

    @Test
    void thePasswordIsInNoProcessListLogNorReport() throws Exception {
        try (ServerProcess server = serve(PG.storeArgument()); Http http = new Http(server.baseUri())) {
            assertThat(http.get("/loan").status(), is(200));
            String cmdline = Files.readString(Path.of("/proc/" + server.pid() + "/cmdline"), StandardCharsets.UTF_8);
            assertThat(cmdline, containsString("postgresql://postgres@127.0.0.1"));
            for (String text : List.of(cmdline, server.output(), http.get("/runtime").body(),
                    http.get("/observe/health").body(), http.get("/observe/metrics").body())) {
                assertThat(text, not(containsString(PostgresProcess.PASSWORD)));
            }
        }
    }

    @Test
    void aQueryTheDatabaseRefusesIsA500AndATableDroppedUnderTheServerIsMadeAgain() throws Exception {
        try (ServerProcess server = serve(PG.storeArgument()); Http http = new Http(server.baseUri())) {
            assertThat(http.get("/loan").status(), is(200));
            PG.empty();     // drops the tables: not an outage, so not a 503 that a retry would cure
            Http.Response broken = http.get("/loan");
            assertThat(broken.body(), broken.status(), is(500));
            assertThat(broken.body(), broken.json().path("error").asText(), is("internal"));
            Http.Response again = http.get("/loan");
            assertThat(again.body(), again.status(), is(200));
            assertThat(again.body(), again.json().path("loanCounter").asLong(), is(1L));
        }
    }

    @Test
    void aWaitInTheDatabaseNeedsAPostgresStore() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of()); Http http = new Http(server.baseUri())) {
            Http.Response r = http.get("/catalog/lookup?ms=1&inside=db");
            assertThat(r.body(), r.status(), is(400));
            assertThat(r.body(), r.json().path("message").asText(), containsString("PostgreSQL"));
        }
    }

    private static ServerProcess serve(String store, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--store", store, "--member-cost", "1024,8,1"));
        args.addAll(List.of(more));
        return ServerProcess.serve(PostgresProcess.environment(), List.of(), args.toArray(String[]::new));
    }

    private static JsonNode pool(Http http) {
        return http.get("/runtime").json().path("storePool").path("pool");
    }

    private static void unavailable(Http.Response r) {
        assertThat(r.body(), r.status(), is(503));
        assertThat(r.body(), r.json().path("error").asText(), is("store_unavailable"));
        assertThat(r.body(), r.header("retry-after"), is("1"));
    }
}
