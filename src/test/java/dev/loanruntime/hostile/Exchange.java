package dev.loanruntime.hostile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.RawHttp.Response;
import dev.loanruntime.testing.RawHttp.Responses;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * What a hostile client sends through {@link RawHttp}, on a fresh socket, and what it checks in every response: no
 * trace of an exception, JSON error bodies, and the catalog still answered after each case.
 */
final class Exchange {
    /** What must never reach a client: signs of an exception or a stack trace. */
    private static final List<String> LEAKS = List.of("Exception", "at dev.", "java.", "io.helidon.");
    static final String BOOKS = "{\"books\":[{\"isbn\":\"978-0262033848\",\"title\":\"Introduction to Algorithms\","
            + "\"shelf\":\"R-12\"}]}";

    private Exchange() {
    }

    /**
     * Sends {@code request}, half-closes when {@code halfClose} (the server then sees the end of input), and reads
     * until {@code expected} responses arrived and, if {@code halfClose}, until the server closes, or {@code wait}
     * passes.
     */
    static Responses send(int port, byte[] request, int expected, boolean halfClose, Duration wait) throws IOException {
        try (RawHttp.Connection connection = RawHttp.connect(port, wait)) {
            try {
                connection.send(request);
                if (halfClose) {
                    connection.halfClose();
                }
            } catch (IOException e) {
                // the server may refuse the rest of a request it already answered; read what it said
            }
            return read(connection, expected, halfClose);
        }
    }

    static Responses send(int port, String request) throws IOException {
        return send(port, request.getBytes(StandardCharsets.ISO_8859_1), 1, false, Duration.ofSeconds(20));
    }

    /** {@link RawHttp.Connection#read(int, boolean)}, each response framed by Content-Length as this service does. */
    static Responses read(RawHttp.Connection connection, int expected, boolean untilClosed) {
        Responses responses = connection.read(expected, untilClosed);
        for (Response answer : responses.answers()) {
            assertThat("this service sends Content-Length bodies: " + answer.headers(),
                    answer.headers().containsKey("transfer-encoding"), is(false));
        }
        return responses;
    }

    /** The body carries no exception trace; an error or JSON body is JSON with the JSON content type. */
    static Response assertClean(Response answer) {
        String body = answer.body();
        for (String leak : LEAKS) {
            assertThat("response leaks '" + leak + "': " + body, body.contains(leak), is(false));
        }
        if (answer.status() >= 400 || !body.isEmpty()) {
            assertThat("status " + answer.status() + " without a JSON content type: " + answer.headers() + " " + body,
                    String.valueOf(answer.header("content-type")).startsWith("application/json"));
            assertThat(body, answer.json().isObject());
        }
        if (answer.status() >= 400) {
            assertThat("error body without an error code: " + body, answer.json().path("error").asText().isEmpty(),
                    is(false));
        }
        return answer;
    }

    /** Status and error code, and a clean body. */
    static Response assertError(Response answer, int expectedStatus, String code) {
        assertThat("status of " + answer, answer.status(), is(expectedStatus));
        assertClean(answer);
        if (code != null) {
            assertThat("error code of " + answer, answer.json().path("error").asText(), is(code));
        }
        return answer;
    }

    /**
     * One hostile case (counted by {@link HostileTally#started()} when it began) is over: the server must still
     * answer {@code GET /books} with the catalog, on a new connection, at once. Counts the case as survived.
     */
    static Duration booksStillAnswer(int port) throws IOException {
        Duration took = booksAnswer(port);
        HostileTally.survived();
        return took;
    }

    /** {@code GET /books} on a new connection must answer the catalog; how long it took. Not counted as a case. */
    static Duration booksAnswer(int port) throws IOException {
        long start = System.nanoTime();
        Response books = send(port, "GET /books HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").only();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat("GET /books after a hostile case: " + books, books.status(), is(200));
        assertThat(books.body(), is(BOOKS));
        assertThat(books.toString(), books.header("content-type").startsWith("application/json"));
        return took;
    }
}
