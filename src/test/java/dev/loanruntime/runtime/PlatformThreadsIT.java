package dev.loanruntime.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.helidon.config.Config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.ResourceLock;

import dev.loanruntime.serve.LoanServer;
import dev.loanruntime.serve.ServeOptions;
import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.Locks;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;


/**
 * {@code --threads platform --platform-threads N}: a pool of N serves at most N requests at once; the others queue.
 * Little's law with waits instead of CPU, so that the bound is the pool, not the machine.
 */
@Timeout(60)
@ResourceLock(Locks.GLOBAL_METER_REGISTRY)
class PlatformThreadsIT {
    private static final int THREADS = 2;
    private static final int REQUESTS = 6;
    private static final int WAIT_MS = 1_000;

    @Test
    void aPoolOfTwoServesSixOneSecondWaitsInThreeRounds() throws Exception {
        ServeOptions options = ServeOptions.parse("--port", "0", "--threads", "platform",
                "--platform-threads", Integer.toString(THREADS), "--crypto-threads", "1", "--crypto-queue", "1",
                "--max-derivations", "1");
        try (LoanServer server = LoanServer.start(options, Config.create());
                Http http = new Http("http://127.0.0.1:" + server.port());
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            assertThat(http.get("/runtime").json().get("platformThreads").asInt(), is(THREADS));
            List<CompletableFuture<Http.Response>> waits = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                waits.add(CompletableFuture.supplyAsync(() -> http.get("/catalog/lookup?ms=" + WAIT_MS), clients));
            }
            long slowestMs = 0;
            for (CompletableFuture<Http.Response> wait : waits) {
                Http.Response response = wait.get();
                assertThat(response.body(), response.status(), is(200));
                slowestMs = Math.max(slowestMs, response.took().toMillis());
            }
            // Two at a time take three rounds of a second; unbounded, all six would end after about one. A lower
            // bound, so a slow machine cannot make it fail.
            long rounds = REQUESTS / THREADS;
            assertThat("the last of " + REQUESTS + " waits of " + WAIT_MS + " ms on " + THREADS + " platform threads "
                            + "ended after " + slowestMs + " ms", slowestMs >= (rounds - 0.5) * WAIT_MS);
        }
    }
}
