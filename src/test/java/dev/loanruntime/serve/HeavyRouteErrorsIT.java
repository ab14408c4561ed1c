package dev.loanruntime.serve;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.helidon.config.Config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import dev.loanruntime.crypto.BlockingHasher;
import dev.loanruntime.crypto.FailingHasher;
import dev.loanruntime.crypto.PasswordHasher;
import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.Locks;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/** The heavy routes' errors, with hand-written hashers so the test controls when and how a derivation ends. */
@ResourceLock(Locks.GLOBAL_METER_REGISTRY)
class HeavyRouteErrorsIT {
    private static final String JSON = "application/json; charset=utf-8";

    private static ServeOptions options(int cryptoThreads, int cryptoQueue, int maxDerivations) {
        return ServeOptions.parse("--port", "0", "--crypto-threads", Integer.toString(cryptoThreads),
                "--crypto-queue", Integer.toString(cryptoQueue), "--max-derivations", Integer.toString(maxDerivations));
    }

    @Test
    void pooledRequestsBeyondTheQueueGet503BusyWithRetryAfterAtOnce() throws Exception {
        BlockingHasher hasher = new BlockingHasher();
        try (LoanServer server = LoanServer.start(options(1, 1, 4), Config.create(), hasher);
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            Http http = new Http("http://127.0.0.1:" + server.port());
            var running = CompletableFuture.supplyAsync(() -> http.get("/member/verify-pooled"), clients);
            await("hasher.running() == 1").atMost(Duration.ofSeconds(10)).until(() -> hasher.running() == 1);
            var queued = CompletableFuture.supplyAsync(() -> http.get("/member/verify-pooled"), clients);
            await("server.report().cryptoQueued() == 1").atMost(Duration.ofSeconds(10))
                    .until(() -> server.report().cryptoQueued() == 1);

            Http.Response refused = http.get("/member/verify-pooled");
            assertThat(refused.status(), is(503));
            assertThat(refused.header("content-type"), is(JSON));
            assertThat(refused.json().get("error").asText(), is("busy"));
            assertThat(refused.header("retry-after"), is("1"));
            assertThat("the refusal came while the pool was still full", running.isDone(), is(false));

            hasher.release();
            assertThat(running.get().status(), is(200));
            assertThat(queued.get().status(), is(200));
        }
    }

    @Test
    void blockingRequestsBeyondTheMemoryBoundGet503Busy() throws Exception {
        BlockingHasher hasher = new BlockingHasher();
        // one derivation may hold its memory, one more may wait (crypto-queue doubles as the wait bound)
        try (LoanServer server = LoanServer.start(options(1, 1, 1), Config.create(), hasher);
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            Http http = new Http("http://127.0.0.1:" + server.port());
            var running = CompletableFuture.supplyAsync(() -> http.get("/member/verify-blocking"), clients);
            await("hasher.running() == 1").atMost(Duration.ofSeconds(10)).until(() -> hasher.running() == 1);
            var waiting = CompletableFuture.supplyAsync(() -> http.get("/member/verify-blocking"), clients);
            // Only once the second request waits for the permit: a third one sent earlier could take its place.
            await("server.report().derivationsWaiting() == 1").atMost(Duration.ofSeconds(10))
                    .until(() -> server.report().derivationsWaiting() == 1);

            Http.Response refused = http.get("/member/verify-blocking");
            assertThat(refused.status(), is(503));
            assertThat(refused.json().get("message").asText(), is("derivation-memory"));
            assertThat(refused.header("retry-after"), is("1"));
            assertThat("the waiting request was answered before the permit was free", waiting.isDone(), is(false));
            hasher.release();
            assertThat(running.get().status(), is(200));
            assertThat(waiting.get().status(), is(200));
        }
    }

    @Test
    void failedDerivationIs500WithoutDetails() {
        PasswordHasher broken = new FailingHasher();
        try (LoanServer server = LoanServer.start(options(1, 1, 1), Config.create(), broken)) {
            Http http = new Http("http://127.0.0.1:" + server.port());
            for (String path : new String[] {"/member/verify-pooled", "/member/verify-blocking"}) {
                Http.Response r = http.get(path);
                assertThat(r.status(), is(500));
                assertThat(r.header("content-type"), is(JSON));
                assertThat(r.body(), is("{\"error\":\"derivation\"}"));
            }
            assertThat(http.get("/books").status(), is(200));
        }
    }
}
