package dev.loanruntime.serve;

import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * The header deadline cuts only a client the server waits for. A client whose headers arrived in time, while the
 * only carrier was busy with an inline derivation, waits for that carrier like everyone else: when the deadline
 * passes, its connection's thread is ready to run, not waiting for bytes, and must not be cut.
 */
@Timeout(90)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class HeadDeadlineOnAHeldCarrierIT {
    private static final Duration DEADLINE = Duration.ofSeconds(2);

    @Test
    void headersThatArrivedWhileTheOnlyCarrierWasBusyAreServedNotCutOff() throws Exception {
        try (ServerProcess server = ServerProcess.start(List.of(),
                CarrierHoldingServer.class.getName(), List.of("--request-head-timeout", "2s"));
                RawHttp.Connection client = RawHttp.connect(server.awaitPort(Duration.ofSeconds(60)),
                        Duration.ofSeconds(10))) {
            int port = server.port();
            client.send("GET /books HTTP/1.1\r\n");
            long requestLineSent = System.nanoTime();
            // Answered after the request line above arrived: the connection's thread, woken first, has read it,
            // started the deadline and waits for the headers.
            Http http = new Http("http://127.0.0.1:" + port);
            for (int i = 0; i < 3; i++) {
                assertThat(http.get("/books").status(), is(200));
            }

            var heavy = CompletableFuture.supplyAsync(() -> http.get("/member/verify-blocking"));
            await("server.output().contains(CarrierHoldingServer.HOLDING)").atMost(Duration.ofSeconds(30))
                    .until(() -> server.output().contains(CarrierHoldingServer.HOLDING));
            client.send("Host: 127.0.0.1\r\nConnection: close\r\n\r\n");
            long headersSentAfterMs = (System.nanoTime() - requestLineSent) / 1_000_000;
            assertThat("too late to test: the headers went out after "
                    + headersSentAfterMs + " ms", headersSentAfterMs < DEADLINE.toMillis());

            // The deadline passes while the carrier is still held; a cut would be a 408 and a closed connection.
            InputStream in = client.in();
            long quietUntil = requestLineSent + DEADLINE.multipliedBy(2).toNanos();
            for (long left; (left = quietUntil - System.nanoTime()) > 0; ) {
                client.socket().setSoTimeout((int) Math.max(1, left / 1_000_000));
                try {
                    int first = in.read();
                    throw new AssertionError("the client was answered while the carrier was held: "
                            + (first < 0 ? "connection closed" : (char) first + new String(in.readNBytes(
                                    Math.min(in.available(), 300)), StandardCharsets.ISO_8859_1)));
                } catch (SocketTimeoutException e) {
                    // nothing yet: what should happen
                }
            }

            server.process().getOutputStream().write('\n');     // let go of the carrier
            server.process().getOutputStream().flush();
            assertThat(heavy.get().status(), is(200));
            client.socket().setSoTimeout(10_000);
            RawHttp.Response answer = client.read();
            assertThat("the connection ended without an answer", answer != null);
            assertThat(answer.body(), answer.status(), is(200));
            assertThat(answer.body(), answer.body().contains("\"books\""));
        }
    }
}
