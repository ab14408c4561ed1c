package dev.loanruntime.hostile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.ServerProcess;

import static dev.loanruntime.hostile.Exchange.assertClean;
import static dev.loanruntime.hostile.Exchange.assertError;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;


/**
 * Clients that send slowly or not at all are cut off after the configured time, and meanwhile every other client is
 * answered at once, also with a single carrier thread (a connection waiting for bytes parks its virtual thread).
 * The server runs with short limits (1 s header deadline, 3 s idle timeout checked every second) given as system
 * properties: this also shows that the configuration keys are the ones the server reads.
 */
@ExtendWith(HostileTally.class)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class SlowClientsIT {
    private static final long HEAD_DEADLINE_MS = 1_000;
    private static final long IDLE_MS = 3_000;
    /** Helidon stamps a connection's last activity with a clock that ticks once a second. */
    private static final long IDLE_CLOCK_MS = 1_000;
    private static final int SLOW_HEADER_CLIENTS = 4;

    @ParameterizedTest(name = "carriers {0}")
    @ValueSource(strings = {"default", "1"})
    void slowAndSilentClientsAreCutOffWithoutBlockingOthers(String carriers) throws Exception {
        List<String> args = new ArrayList<>(List.of("--member-cost", "1024,8,1", "--request-head-timeout", "1s"));
        if (!carriers.equals("default")) {
            args.addAll(List.of("--carriers", carriers));
        }
        List<String> jvm = List.of("-Xmx512m",
                "-Dserver.idle-connection-timeout=PT3S", "-Dserver.idle-connection-period=PT1S");
        try (ServerProcess server = ServerProcess.serve(jvm, args.toArray(String[]::new));
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            int port = server.port();
            for (int i = 0; i < SLOW_HEADER_CLIENTS + 3; i++) {
                HostileTally.started();     // one case per slow or silent client
            }
            List<Future<Cut>> slowHeaders = new ArrayList<>();
            for (int i = 0; i < SLOW_HEADER_CLIENTS; i++) {
                slowHeaders.add(clients.submit(dribble(port, "GET /books HTTP/1.1\r\nHost: 127.0.0.1\r\n", "X-Slow: ")));
            }
            Future<Cut> slowLine = clients.submit(dribble(port, "", "GET /books?"));
            Future<Cut> idle = clients.submit(silentAfter(port, ""));
            Future<Cut> closeButStay = clients.submit(silentAfter(port, "Connection: close\r\n"));

            // while they hang on, other clients are answered at once, one request after another
            long maxBooksMs = 0;
            while (!(slowLine.isDone() && idle.isDone() && closeButStay.isDone())) {
                maxBooksMs = Math.max(maxBooksMs, Exchange.booksAnswer(port).toMillis());
            }
            assertThat("GET /books took " + maxBooksMs + " ms while slow clients were connected", maxBooksMs < 1_000);

            for (Future<Cut> client : slowHeaders) {
                Cut cut = client.get();
                RawHttp.Response answer = assertError(cut.result().only(), 408, "request_timeout");
                assertThat(answer.header("connection"), is("close"));
                assertThat("the server must close the connection after 408", cut.result().closed());
                assertBetween(cut, HEAD_DEADLINE_MS, HEAD_DEADLINE_MS + 3_000);
            }
            // the request line: Helidon's idle check (every second) closes a connection still reading it
            assertClosedSilently(slowLine.get(), IDLE_MS - IDLE_CLOCK_MS, IDLE_MS + 4_000);
            // a kept-alive connection with no next request, and one whose client asked to close but stays
            assertClosedSilently(idle.get(), IDLE_MS - IDLE_CLOCK_MS, IDLE_MS + 4_000);
            assertClosedSilently(closeButStay.get(), IDLE_MS - IDLE_CLOCK_MS, IDLE_MS + 4_000);
            for (int i = 0; i < SLOW_HEADER_CLIENTS + 3; i++) {
                Exchange.booksStillAnswer(port);     // one "survived" per slow or silent client
            }
        }
    }

    /** How a slow client ended: what it read and how long after its last complete line the server cut it. */
    private record Cut(RawHttp.Responses result, long afterMs) {
    }

    /**
     * Sends {@code head} at once, then {@code slow} and filler one byte every 50 ms until the server closes, and
     * reads whatever the server answers.
     */
    private static Callable<Cut> dribble(int port, String head, String slow) {
        return () -> {
            try (RawHttp.Connection connection = RawHttp.connect(port, Duration.ofSeconds(20))) {
                connection.send(head);
                long start = System.nanoTime();
                Thread writer = Thread.ofVirtual().start(() -> {
                    try {
                        byte[] bytes = (slow + "a".repeat(2_000)).getBytes(StandardCharsets.ISO_8859_1);
                        for (byte b : bytes) {
                            connection.send(new byte[] {b});
                            Thread.sleep(50);
                        }
                    } catch (IOException | InterruptedException e) {
                        // the server closed the connection: what this client is waiting for
                    }
                });
                RawHttp.Responses result = Exchange.read(connection, 1, true);
                long afterMs = (System.nanoTime() - start) / 1_000_000;
                writer.interrupt();
                return new Cut(result, afterMs);
            }
        };
    }

    /** One complete request (with {@code extraHeader}), its answer, then silence until the server closes. */
    private static Callable<Cut> silentAfter(int port, String extraHeader) {
        return () -> {
            try (RawHttp.Connection connection = RawHttp.connect(port, Duration.ofSeconds(20))) {
                connection.send("GET /books HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extraHeader + "\r\n");
                RawHttp.Responses first = Exchange.read(connection, 1, false);
                assertThat(assertClean(first.only()).body(), is(Exchange.BOOKS));
                long start = System.nanoTime();
                RawHttp.Responses rest = Exchange.read(connection, 0, true);
                return new Cut(rest, (System.nanoTime() - start) / 1_000_000);
            }
        };
    }

    private static void assertClosedSilently(Cut cut, long minMs, long maxMs) {
        assertThat("not closed: " + cut, cut.result().closed());
        assertThat("closed without a response expected", cut.result().answers(), is(List.of()));
        assertBetween(cut, minMs, maxMs);
    }

    private static void assertBetween(Cut cut, long minMs, long maxMs) {
        // a little below the limit: the client's clock starts after its last write, the server's a bit before
        assertThat("cut off after " + cut.afterMs() + " ms, expected " + minMs + ".." + maxMs + " ms: " + cut, cut.afterMs() >= minMs - 200 && cut.afterMs() <= maxMs);
    }
}
