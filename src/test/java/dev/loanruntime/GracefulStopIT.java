package dev.loanruntime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.protocol.StatusLines;
import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * SIGTERM to {@code serve}: it stops accepting at once, lets the requests in flight finish within the shutdown
 * grace period ({@code server.shutdown-grace-period}, 10 s in application.yaml, checked by
 * {@code ConfiguredLimitsTest}), and exits 0. With {@code --drain-delay 0}: what comes after the drain, which
 * {@code DrainIT} checks.
 */
@Timeout(90)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class GracefulStopIT {
    private static final String[] NO_DRAIN = {"--drain-delay", "0"};

    @Test
    void sigtermRefusesNewConnectionsLetsTheInFlightRequestFinishThenExits0() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), NO_DRAIN)) {
            Http http = new Http(server.baseUri());
            int port = server.port();
            var inFlight = CompletableFuture.supplyAsync(() -> http.get("/catalog/lookup?ms=3000"));
            await("activeRequests(server) > 0").atMost(Duration.ofSeconds(10)).until(() -> activeRequests(server) > 0);
            server.sigterm();

            // while the request is still being handled, nobody new gets in
            await("RawHttp.refused(port)").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> RawHttp.refused(port));
            assertThat("the in-flight request ended before the listener closed: " + inFlight, inFlight.isDone(), is(false));

            Http.Response r = inFlight.get();
            assertThat(r.body(), r.status(), is(200));
            assertThat(r.json().get("waitedMs").asInt(), is(3000));
            assertThat(server.output(), server.awaitExit(Duration.ofSeconds(20)), is(0));
            assertThat(server.output(), server.output().contains(StatusLines.STOPPED));
        }
    }

    /**
     * A connection the server accepted before SIGTERM, whose request arrives only after the listener has closed, is
     * still answered, with {@code Connection: close}: the stop closes the listening socket, answers what it had
     * accepted, and only then stops Helidon. Helidon's stop alone closes such a connection at once, its request
     * unread, and the client gets a reset: in a rolling restart, the connection a client opened a moment before.
     */
    @Test
    void aRequestOnAConnectionAcceptedBeforeTheStopIsAnswered() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), NO_DRAIN);
             RawHttp.Connection early = RawHttp.connect(server.port(), Duration.ofSeconds(10))) {
            int port = server.port();
            Thread.sleep(300);   // accepted by the server, not only by the kernel
            server.sigterm();
            await("RawHttp.refused(port)").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(() -> RawHttp.refused(port));

            RawHttp.Response r = early.getOrNoResponse("/books");
            assertThat(r.body(), r.status(), is(200));
            assertThat(r.header("connection"), is("close"));
            assertThat(server.output(), server.awaitExit(Duration.ofSeconds(20)), is(0));
        }
    }

    @Test
    void aRequestLongerThanTheGracePeriodDoesNotHoldTheStop() throws Exception {
        // The same key as in application.yaml, shortened: a 10 s wait outlasts a 1 s grace period.
        try (ServerProcess server = ServerProcess.serve(List.of("-Dserver.shutdown-grace-period=PT1S"), NO_DRAIN)) {
            Http http = new Http(server.baseUri());
            var inFlight = CompletableFuture.supplyAsync(() -> {
                try {
                    return http.get("/catalog/lookup?ms=10000").status();
                } catch (RuntimeException e) {
                    return -1;  // the connection closed without a response
                }
            });
            await("activeRequests(server) > 0").atMost(Duration.ofSeconds(10)).until(() -> activeRequests(server) > 0);

            long termAt = System.nanoTime();
            server.sigterm();
            assertThat(server.output(), server.awaitExit(Duration.ofSeconds(20)), is(0));
            long exitedAfterMs = (System.nanoTime() - termAt) / 1_000_000;

            assertThat("exited " + exitedAfterMs + " ms after SIGTERM with a 1 s grace period and a 10 s request", exitedAfterMs >= 900 && exitedAfterMs < 6_000);
            assertThat("the 10 s request finished after all", inFlight.get(), not(200));
        }
    }

    @Test
    @Timeout(400)
    void sigtermTheMomentTheServingLineAppearsStillDrainsAndStops() throws Exception {
        // The serving line is the sign, for the primary and for scripts, that a server can be told to stop: its
        // signal handlers must already be there. ServerProcess.serve returns as soon as it reads that line.
        for (int attempt = 1; attempt <= 5; attempt++) {
            try (ServerProcess server = ServerProcess.serve(List.of(), "--drain-delay", "100ms")) {
                server.sigterm();
                int exit = server.awaitExit(Duration.ofSeconds(30));
                String output = server.output();
                assertThat("attempt " + attempt + ":\n" + output, exit, is(0));
                assertThat("attempt " + attempt + ":\n" + output, output.contains(StatusLines.DRAINING), is(true));
                assertThat("attempt " + attempt + ":\n" + output, output.contains(StatusLines.STOPPED), is(true));
            }
        }
    }

    private static int activeRequests(ServerProcess server) {
        // the asking request counts itself
        return new Http(server.baseUri()).get("/runtime").json().get("requestsInFlight").asInt() - 1;
    }
}
