package dev.loanruntime.serve;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;

/**
 * Each protection against overload in a child server whose derivations spin for a known time: past its bound a heavy
 * request gets 503 {@code overloaded} with Retry-After, and what each one lets through beside it.
 */
@Timeout(180)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class OverloadIT {
    @Test
    void theListenersFixedLimitRefusesEveryRequestPastItsPermitsTheLightOnesToo() throws Exception {
        try (ServerProcess server = spinning(2, 3000, "--limit", "fixed:1:0");
                Http http = new Http(server.baseUri());
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            CompletableFuture<Integer> holder = CompletableFuture.supplyAsync(
                    () -> http.get("/member/verify-pooled").status(), clients);
            awaitSpinning(server, 1);
            overloaded(http.get("/member/verify-pooled"));
            // the listener counts every request, whatever its route: the light one finds no permit either
            overloaded(http.get("/books"));
            assertThat(holder.get(), is(200));
            assertThat(http.get("/books").status(), is(200));
            JsonNode overload = http.get("/runtime").json().path("overload");
            assertThat(overload.toString(), overload.path("limit").asText(), is("fixed:1:0"));
            assertThat(overload.toString(), overload.path("refusedByLimit").asLong(), is(2L));
        }
    }

    @Test
    void aimdStartsWithOnePermitPerCore() throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();    // the child's, on the same machine
        // a carrier for each held request, and one more to read and refuse the next
        try (ServerProcess server = spinning(cores + 1, 3000, "--limit", "aimd", "--max-derivations",
                Integer.toString(Math.max(4, cores)));
                Http http = new Http(server.baseUri());
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<CompletableFuture<Integer>> holders = new ArrayList<>();
            for (int i = 0; i < cores; i++) {
                holders.add(CompletableFuture.supplyAsync(() -> http.get("/member/verify-blocking").status(),
                        clients));
            }
            awaitSpinning(server, cores);
            overloaded(http.get("/member/verify-blocking"));
            for (CompletableFuture<Integer> holder : holders) {
                assertThat(holder.get(), is(200));
            }
            assertThat(http.get("/runtime").json().path("overload").path("helidonConfig").asText(),
                    is("server.concurrency-limit.aimd: {min-limit: 1, initial-limit: " + cores + ", max-limit: 200}"));
        }
    }

    @Test
    void theDelayGuardShedsHeavyRequestsOnlyWhileTheDelayIsOverItsBound() throws Exception {
        // a bound under the one-second stall but near it: a guard that shed only far past its bound admits here
        try (ServerProcess server = spinning(1, 1000, "--shed-delay", "600ms");
                Http http = new Http(server.baseUri())) {
            await("an idle server admits a heavy request").atMost(Duration.ofSeconds(10))
                    .until(() -> !http.get("/runtime").json().path("overload").path("shedding").asBoolean());
            // inline on the only carrier: the second of spinning is a second of carrier delay
            assertThat(http.get("/member/verify-blocking").status(), is(200));
            Http.Response shed = http.get("/member/verify-blocking");
            overloaded(shed);
            // never shed: the light routes, health, the runtime report, metrics
            assertThat(http.get("/books").status(), is(200));
            assertThat(http.get("/observe/health").status(), is(200));
            assertThat(http.get("/observe/metrics").status(), is(200));
            JsonNode overload = http.get("/runtime").json().path("overload");
            assertThat(overload.toString(), overload.path("shedByDelay").asLong(), greaterThanOrEqualTo(1L));
            // once a window without the stall has passed, heavy requests are admitted again
            await("the guard admits heavy requests again once the delay has fallen").atMost(Duration.ofSeconds(15))
                    .until(() -> http.get("/member/verify-blocking").status(), is(200));
        }
    }

    private static void overloaded(Http.Response r) {
        assertThat(r.body(), r.status(), is(503));
        assertThat(r.body(), r.json().path("error").asText(), is("overloaded"));
        assertThat(r.body(), r.header("retry-after"), is("1"));
    }

    private static void awaitSpinning(ServerProcess server, int derivations) {
        await("a derivation spinning").atMost(Duration.ofSeconds(20))
                .until(() -> server.output().split(SpinningHasherServer.SPINNING, -1).length - 1 >= derivations);
    }

    private static ServerProcess spinning(int carriers, long spinMillis, String... options) throws Exception {
        return ServerProcess.startListening(List.of(), SpinningHasherServer.class.getName(),
                SpinningHasherServer.args(carriers, "virtual", spinMillis, "default", options));
    }
}
