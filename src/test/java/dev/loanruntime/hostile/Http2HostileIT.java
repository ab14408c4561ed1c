package dev.loanruntime.hostile;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.loanruntime.client.H2Frames;
import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.ServerProcess;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

/**
 * Clients that abuse HTTP/2: each is answered by the protocol (GOAWAY, or HTTP/1.1's own error when the connection
 * never was HTTP/2) on its own connection, while another connection's {@code GET /books} is answered at once. One
 * server, with application.yaml's limits (250 concurrent streams a connection).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Http2HostileIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int REFUSED_STREAM = 0x7;
    private ServerProcess server;
    private Http other;

    @BeforeAll
    void start() throws IOException {
        server = ServerProcess.serve(List.of());
        other = new Http(server.baseUri());
    }

    @AfterAll
    void stop() {
        if (other != null) {
            other.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** CVE-2023-44487: open a stream, cancel it, again, as fast as the socket takes it. */
    @Test
    void rapidResetEndsTheConnectionWithEnhanceYourCalm() throws Exception {
        try (H2Frames h2 = open()) {
            for (int stream = 1; stream <= 399; stream += 2) {
                h2.get(stream, "/catalog/lookup?ms=1000");
                h2.reset(stream, H2Frames.CANCEL);
            }
            H2Frames.Frame goaway = until(h2, H2Frames.GOAWAY);
            assertThat(goaway.errorCode(), is(H2Frames.ENHANCE_YOUR_CALM));
        }
        assertBooksServedAtOnce();
    }

    @Test
    void streamsPastTheConcurrentLimitAreRefused() throws Exception {
        try (H2Frames h2 = open()) {
            for (int i = 0; i < 251; i++) {
                h2.get(2 * i + 1, "/catalog/lookup?ms=3000");
            }
            H2Frames.Frame refused = until(h2, H2Frames.GOAWAY, H2Frames.RST_STREAM);
            assertThat(refused.toString(), refused.errorCode(), is(REFUSED_STREAM));
        }
        assertBooksServedAtOnce();
    }

    /** A header block that never ends: HEADERS without END_HEADERS, then CONTINUATION frames of 1 KiB each. */
    @Test
    void aContinuationFloodPastTheHeaderListLimitEndsTheConnection() throws Exception {
        try (H2Frames h2 = open()) {
            h2.frame(H2Frames.HEADERS, 0, 1, h2.headerBlock("GET", "/books", Map.of()));
            byte[] filler = new byte[1024];
            Arrays.fill(filler, (byte) 'x');
            byte[] field = h2.headerBlock("GET", "/books", Map.of("x-filler", new String(filler,
                    StandardCharsets.ISO_8859_1)));
            Optional<H2Frames.Frame> goaway = Optional.empty();
            // 64 KiB at most, eight times the limit; the server may close before the last frames are written
            for (int i = 0; i < 64 && goaway.isEmpty(); i++) {
                try {
                    h2.frame(H2Frames.CONTINUATION, 0, 1, field);
                } catch (SocketException e) {
                    break;
                }
                goaway = poll(h2, H2Frames.GOAWAY);
            }
            H2Frames.Frame end = goaway.isPresent() ? goaway.get() : until(h2, H2Frames.GOAWAY);
            assertThat(end.toString(), end.errorCode(), is(H2Frames.ENHANCE_YOUR_CALM));
        }
        assertBooksServedAtOnce();
    }

    /** CONTINUATION frames of no bytes, which no byte count sees: Helidon 4.5.0 keeps each one (http/FrameGuard). */
    @Test
    void aFloodOfEmptyContinuationFramesEndsTheConnection() throws Exception {
        try (H2Frames h2 = open()) {
            h2.frame(H2Frames.HEADERS, 0, 1, h2.headerBlock("GET", "/books", Map.of()));
            Optional<H2Frames.Frame> goaway = Optional.empty();
            for (int i = 0; i < 10_000 && goaway.isEmpty(); i++) {
                try {
                    h2.frame(H2Frames.CONTINUATION, 0, 1, new byte[0]);
                } catch (SocketException e) {
                    break;
                }
                if (i % 100 == 0) {
                    goaway = poll(h2, H2Frames.GOAWAY);
                }
            }
            H2Frames.Frame end = goaway.isPresent() ? goaway.get() : until(h2, H2Frames.GOAWAY);
            assertThat(end.toString(), end.errorCode(), is(H2Frames.ENHANCE_YOUR_CALM));
        }
        assertBooksServedAtOnce();
    }

    /** One HEADERS frame of 12 KiB, over the 8 KiB that max-header-list-size allows (HTTP/1.1's limit too: 431). */
    @Test
    void oneHeadersFrameOverTheHeaderListLimitEndsTheConnection() throws Exception {
        try (H2Frames h2 = open()) {
            byte[] filler = new byte[12 * 1024];
            Arrays.fill(filler, (byte) 'x');
            h2.frame(H2Frames.HEADERS, H2Frames.END_HEADERS | H2Frames.END_STREAM, 1, h2.headerBlock("GET", "/books",
                    Map.of("x-filler", new String(filler, StandardCharsets.ISO_8859_1))));
            H2Frames.Frame answer = until(h2, H2Frames.GOAWAY, H2Frames.HEADERS);
            assertThat("the stream was answered: " + answer, answer.type(), is(H2Frames.GOAWAY));
            assertThat(answer.errorCode(), is(H2Frames.ENHANCE_YOUR_CALM));
        }
        assertBooksServedAtOnce();
    }

    /** Bytes that start like HTTP/2's preface but are not one: the connection is HTTP/1.1, which refuses it. */
    @Test
    void aBadPrefaceIsAnsweredAsTheHttp1RequestItIs() throws Exception {
        RawHttp.Response answer = Exchange.send(server.port(), "PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n").only();
        Exchange.assertError(answer, 400, "bad_request");   // Helidon reads HTTP/2.0 as a malformed line
        assertBooksServedAtOnce();
    }

    /**
     * A connection whose server SETTINGS are read and acknowledged: an acknowledgement written later, by a read in
     * the middle of a header block, would itself break the block (RFC 9113, section 6.10) and draw a PROTOCOL_ERROR.
     */
    private H2Frames open() throws IOException {
        H2Frames h2 = H2Frames.open("127.0.0.1", server.port(), Duration.ofSeconds(5));
        try {
            until(h2, H2Frames.SETTINGS);
            return h2;
        } catch (IOException | RuntimeException | AssertionError e) {
            h2.close();
            throw e;
        }
    }

    /** The first frame of one of {@code types}, skipping others; fails after {@link #WAIT} or at the connection end. */
    private static H2Frames.Frame until(H2Frames h2, int... types) throws IOException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            Optional<H2Frames.Frame> frame = poll(h2, types);
            if (frame.isPresent()) {
                return frame.get();
            }
        }
        throw new AssertionError("no frame of types " + Arrays.toString(types) + " within " + WAIT);
    }

    private static Optional<H2Frames.Frame> poll(H2Frames h2, int... types) throws IOException {
        Optional<H2Frames.Frame> frame;
        try {
            frame = h2.read(Duration.ofMillis(50));
        } catch (EOFException e) {
            throw new AssertionError("the connection ended without a frame of types " + Arrays.toString(types), e);
        }
        return frame.filter(f -> Arrays.stream(types).anyMatch(t -> t == f.type()));
    }

    private void assertBooksServedAtOnce() {
        Http.Response books = other.get("/books");
        assertThat(books.status(), is(200));
        assertThat("ms for /books on another connection", books.took().toMillis(), lessThan(1000L));
    }
}
