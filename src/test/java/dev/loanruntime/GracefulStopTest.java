package dev.loanruntime;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.loanruntime.serve.StatusLines;
import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM to {@code serve}: it stops accepting at once, lets the requests in flight finish within the shutdown
 * grace period ({@code server.shutdown-grace-period}, 10 s in application.yaml, checked by
 * {@code ConfiguredLimitsTest}), and exits 0.
 */
@Timeout(90)
class GracefulStopTest {

    @Test
    void sigtermRefusesNewConnectionsLetsTheInFlightRequestFinishThenExits0() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of())) {
            Http http = new Http(server.baseUri());
            int port = server.port();
            var inFlight = CompletableFuture.supplyAsync(() -> http.get("/catalog/lookup?ms=3000"));
            await().atMost(Duration.ofSeconds(10)).until(() -> activeRequests(server) > 0);
            server.sigterm();

            // while the request is still being handled, nobody new gets in
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> refused(port));
            assertFalse(inFlight.isDone(), "the in-flight request ended before the listener closed: " + inFlight);

            Http.Response r = inFlight.get();
            assertEquals(200, r.status(), r.body());
            assertEquals(3000, r.json().get("waitedMs").asInt());
            assertEquals(0, server.awaitExit(Duration.ofSeconds(20)), server.output());
            assertTrue(server.output().contains(StatusLines.STOPPED), server.output());
        }
    }

    @Test
    void aRequestLongerThanTheGracePeriodDoesNotHoldTheStop() throws Exception {
        // The same key as in application.yaml, shortened: a 10 s wait outlasts a 1 s grace period.
        try (ServerProcess server = ServerProcess.serve(List.of("-Dserver.shutdown-grace-period=PT1S"))) {
            Http http = new Http(server.baseUri());
            var inFlight = CompletableFuture.supplyAsync(() -> {
                try {
                    return http.get("/catalog/lookup?ms=10000").status();
                } catch (RuntimeException e) {
                    return -1;  // the connection closed without a response
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> activeRequests(server) > 0);

            long termAt = System.nanoTime();
            server.sigterm();
            assertEquals(0, server.awaitExit(Duration.ofSeconds(20)), server.output());
            long exitedAfterMs = (System.nanoTime() - termAt) / 1_000_000;

            assertTrue(exitedAfterMs >= 900 && exitedAfterMs < 6_000,
                    "exited " + exitedAfterMs + " ms after SIGTERM with a 1 s grace period and a 10 s request");
            assertNotEquals(200, inFlight.get(), "the 10 s request finished after all");
        }
    }

    private static boolean refused(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return false;
        } catch (ConnectException e) {
            return true;
        }
    }

    private static int activeRequests(ServerProcess server) {
        // the asking request counts itself
        return new Http(server.baseUri()).get("/runtime").json().get("requestsInFlight").asInt() - 1;
    }
}
