package dev.loanruntime.hostile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Raw bytes to the server on a fresh socket, and every response that comes back, parsed by hand: what a hostile
 * client sees, with none of an HTTP client's repairs (it would refuse to send most of these requests).
 */
final class Exchange {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** What must never reach a client: signs of an exception or a stack trace. */
    private static final List<String> LEAKS = List.of("Exception", "at dev.", "java.", "io.helidon.");
    static final String BOOKS = "{\"books\":[{\"isbn\":\"978-0262033848\",\"title\":\"Introduction to Algorithms\","
            + "\"shelf\":\"R-12\"}]}";

    /** One response; {@code headers} keys are lower case. */
    record Answer(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        JsonNode json() {
            try {
                return MAPPER.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("body is not JSON: " + body, e);
            }
        }

        /** The body carries no exception trace; an error or JSON body is JSON with the JSON content type. */
        Answer assertClean() {
            for (String leak : LEAKS) {
                assertThat("response leaks '" + leak + "': " + body, body.contains(leak), is(false));
            }
            if (status >= 400 || !body.isEmpty()) {
                assertThat("status " + status + " without a JSON content type: " + headers + " " + body, String.valueOf(header("content-type")).startsWith("application/json"));
                assertThat(body, json().isObject());
            }
            if (status >= 400) {
                assertThat("error body without an error code: " + body, json().path("error").asText().isEmpty(), is(false));
            }
            return this;
        }

        /** Status and error code, and a clean body. */
        Answer assertError(int expectedStatus, String code) {
            assertThat("status of " + this, status, is(expectedStatus));
            assertClean();
            if (code != null) {
                assertThat("error code of " + this, json().path("error").asText(), is(code));
            }
            return this;
        }
    }

    /** What came back: the responses in order, and whether the server closed the connection. */
    record Result(List<Answer> answers, boolean closed) {
        Answer only() {
            assertThat("answers: " + answers, answers.size(), is(1));
            return answers.getFirst();
        }
    }

    private Exchange() {
    }

    /**
     * Sends {@code request}, half-closes when {@code halfClose} (the server then sees the end of input), and reads
     * until {@code expected} responses arrived and, if {@code halfClose}, until the server closes, or {@code wait}
     * passes.
     */
    static Result send(int port, byte[] request, int expected, boolean halfClose, Duration wait) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout((int) wait.toMillis());
            try {
                socket.getOutputStream().write(request);
                socket.getOutputStream().flush();
                if (halfClose) {
                    socket.shutdownOutput();
                }
            } catch (IOException e) {
                // the server may refuse the rest of a request it already answered; read what it said
            }
            return read(socket.getInputStream(), expected, halfClose);
        }
    }

    static Result send(int port, String request) throws IOException {
        return send(port, request.getBytes(StandardCharsets.ISO_8859_1), 1, false, Duration.ofSeconds(20));
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
        Answer books = send(port, "GET /books HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").only();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat("GET /books after a hostile case: " + books, books.status(), is(200));
        assertThat(books.body(), is(BOOKS));
        assertThat(books.toString(), books.header("content-type").startsWith("application/json"));
        return took;
    }

    static Result read(InputStream in, int expected, boolean untilClosed) throws IOException {
        List<Answer> answers = new ArrayList<>();
        boolean closed = false;
        try {
            while (untilClosed || answers.size() < expected) {
                Answer answer = next(in);
                if (answer == null) {
                    closed = true;
                    break;
                }
                if (answer.status() != 100) {
                    answers.add(answer);
                }
            }
        } catch (SocketTimeoutException e) {
            if (answers.size() < expected || untilClosed) {
                fail("server neither answered nor closed in time; answers so far: " + answers);
            }
        } catch (IOException e) {
            closed = true;      // reset: the server dropped the connection
        }
        return new Result(answers, closed);
    }

    /** The next response, or null at the end of the stream before its first byte. */
    private static Answer next(InputStream in) throws IOException {
        String statusLine = line(in);
        if (statusLine == null) {
            return null;
        }
        assertThat("not an HTTP status line: '" + statusLine + "'", statusLine.matches("HTTP/1\\.1 \\d{3} .*"));
        Map<String, String> headers = new TreeMap<>();
        for (String header = line(in); header != null && !header.isEmpty(); header = line(in)) {
            int colon = header.indexOf(':');
            headers.put(header.substring(0, colon).trim().toLowerCase(Locale.ROOT), header.substring(colon + 1).trim());
        }
        int status = Integer.parseInt(statusLine.substring(9, 12));
        String length = headers.get("content-length");
        assertThat("this service sends Content-Length bodies: " + headers, headers.containsKey("transfer-encoding"), is(false));
        byte[] body = length == null ? new byte[0] : in.readNBytes(Integer.parseInt(length));
        return new Answer(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                if (line.size() == 0) {
                    return null;
                }
                throw new AssertionError("connection closed in the middle of a response line: " + line);
            }
            if (c != '\r') {
                line.write(c);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }
}
