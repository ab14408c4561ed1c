package dev.loanruntime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GracefulStopTest {

    @Test
    void sigtermLetsTheInFlightRequestFinishThenExits0() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of())) {
            Http http = new Http(server.baseUri());
            var inFlight = CompletableFuture.supplyAsync(() -> http.get("/catalog/lookup?ms=1500"));
            // wait until the request is being handled, then ask the server to stop
            await().atMost(Duration.ofSeconds(10)).until(() -> server.process().isAlive()
                    && activeRequests(server) > 0);
            server.sigterm();

            Http.Response r = inFlight.get();
            assertEquals(200, r.status(), r.body());
            assertEquals(1500, r.json().get("waitedMs").asInt());
            assertEquals(0, server.awaitExit(Duration.ofSeconds(20)), server.output());
            assertTrue(server.output().contains("loan-runtime stopped"), server.output());
        }
    }

    private static int activeRequests(ServerProcess server) {
        // the asking request counts itself
        return new Http(server.baseUri()).get("/runtime").json().get("requestsInFlight").asInt() - 1;
    }
}
