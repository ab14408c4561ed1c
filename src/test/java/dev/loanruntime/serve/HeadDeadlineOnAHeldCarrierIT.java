package dev.loanruntime.serve;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.loanruntime.testing.Http;
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
class HeadDeadlineOnAHeldCarrierIT {
    private static final Duration DEADLINE = Duration.ofSeconds(2);

    @Test
    void headersThatArrivedWhileTheOnlyCarrierWasBusyAreServedNotCutOff() throws Exception {
        try (ServerProcess server = ServerProcess.start(List.of(),
                CarrierHoldingServer.class.getName(), List.of("--request-head-timeout", "2s"));
                Socket client = new Socket("127.0.0.1", server.awaitPort(Duration.ofSeconds(60)))) {
            int port = server.port();
            OutputStream out = client.getOutputStream();
            out.write("GET /books HTTP/1.1\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
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
            out.write("Host: 127.0.0.1\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            long headersSentAfterMs = (System.nanoTime() - requestLineSent) / 1_000_000;
            assertThat("too late to test: the headers went out after "
                    + headersSentAfterMs + " ms", headersSentAfterMs < DEADLINE.toMillis());

            // The deadline passes while the carrier is still held; a cut would be a 408 and a closed connection.
            InputStream in = client.getInputStream();
            long quietUntil = requestLineSent + DEADLINE.multipliedBy(2).toNanos();
            for (long left; (left = quietUntil - System.nanoTime()) > 0; ) {
                client.setSoTimeout((int) Math.max(1, left / 1_000_000));
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
            client.setSoTimeout(10_000);
            StringBuilder answer = new StringBuilder();
            // the catalog's body ends the response (the server keeps the socket open until the client closes it)
            for (int c; !answer.toString().endsWith("}]}") && (c = in.read()) >= 0; ) {
                answer.append((char) c);
            }
            assertThat(answer.toString(), answer.toString().startsWith("HTTP/1.1 200 ") && answer.toString().contains("\"books\""));
        }
    }
}
