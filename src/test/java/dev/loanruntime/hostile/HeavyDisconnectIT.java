package dev.loanruntime.hostile;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * Clients that hang up in the middle of a heavy request: the derivations they started still end, their memory
 * permits and crypto-pool slots come back, and afterwards the full pool serves two derivations at once.
 */
@ExtendWith(HostileTally.class)
class HeavyDisconnectIT {
    private static final List<String> PATHS = List.of("/member/verify-pooled", "/member/verify-pooled",
            "/member/verify-blocking", "/member/verify-blocking");
    private static ServerProcess server;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        // two pool threads, two memory permits, two waiting places: the four requests fill the server
        server = ServerProcess.serve(List.of("-Xmx512m"),
                "--crypto-threads", "2", "--max-derivations", "2", "--crypto-queue", "2");
        http = new Http(server.baseUri());
    }

    @AfterAll
    static void stop() {
        http.close();
        server.close();
    }

    @Test
    void clientsHangingUpMidDerivationGiveBackEveryPermit() throws Exception {
        List<RawHttp.Connection> hangingUp = new ArrayList<>();
        try {
            // both heavy routes at once: one wait for the derivations to end instead of two (each takes seconds)
            for (String path : PATHS) {
                HostileTally.started();     // one case per client that hangs up
                RawHttp.Connection client = RawHttp.connect(server.port(), Duration.ofSeconds(60));
                hangingUp.add(client);
                client.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            }
            // With verify-blocking, /runtime itself waits for a free carrier while two derivations hold both: it
            // answers between them, when the third request has taken the freed permit.
            await("runtime(\"derivationsRunning\") >= 1").atMost(Duration.ofSeconds(60))
                    .until(() -> runtime("derivationsRunning") >= 1);
        } finally {
            for (RawHttp.Connection client : hangingUp) {
                client.socket().setSoLinger(true, 0);     // a reset, as from a client that crashed
                client.close();
            }
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime("derivationsRunning") == 0
                && runtime("cryptoQueued") == 0 && runtime("requestsInFlight") == 1);

        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            var first = CompletableFuture.supplyAsync(() -> http.get("/member/verify-pooled"), clients);
            var second = CompletableFuture.supplyAsync(() -> http.get("/member/verify-pooled"), clients);
            assertThat(first.get().body(), first.get().status(), is(200));
            assertThat(second.get().body(), second.get().status(), is(200));
        }
        Http.Response health = http.get("/observe/health");
        assertThat(health.body(), health.status(), is(200));
        assertThat(runtime("derivationsRunning"), is(0));
        for (int i = 0; i < PATHS.size(); i++) {
            Exchange.booksStillAnswer(server.port());      // one case per client that hung up
        }
    }

    private static int runtime(String field) {
        return (int) http.get("/runtime").number(field);
    }
}
