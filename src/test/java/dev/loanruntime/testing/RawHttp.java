package dev.loanruntime.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * HTTP/1.1 written and read by hand on a socket, to 127.0.0.1: the test decides every byte that goes out and when,
 * malformed ones too, and sees what comes back with none of an HTTP client's repairs. {@link #get} and {@link #head}
 * are one request on a new connection ({@code Connection: close}): several processes share a port and the kernel
 * picks one per connection, so a test that wants to see the spread must not reuse connections, which any pooling
 * client would do. A {@link Connection} stays open for what the test writes next. Every response is read by
 * {@link Connection#read()}.
 */
public final class RawHttp {
    private static final Pattern PID = Pattern.compile("\"pid\":(\\d+)");
    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.1 (\\d{3})( .*)?");
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int CONNECT_MILLIS = 5_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private RawHttp() {
    }

    /** A response: status code, body, and headers (names in lower case). */
    public record Response(int status, String body, Map<String, String> headers) {
        /** A header's value, or null. */
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        /** The {@code pid} field of a JSON body. */
        public long pid() {
            Matcher m = PID.matcher(body);
            if (!m.find()) {
                throw new IllegalStateException("no pid in " + body);
            }
            return Long.parseLong(m.group(1));
        }

        /** An integer field of a flat JSON body. */
        public long number(String field) {
            Matcher m = Pattern.compile("\"" + field + "\":(\\d+)").matcher(body);
            if (!m.find()) {
                throw new IllegalStateException("no " + field + " in " + body);
            }
            return Long.parseLong(m.group(1));
        }

        /** The body parsed as JSON. */
        public JsonNode json() {
            try {
                return MAPPER.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("body is not JSON: " + body, e);
            }
        }
    }

    /** What came back on a connection: the responses in order (without 100 Continue), and whether it ended. */
    public record Responses(List<Response> answers, boolean closed) {
        /** The one response; fails the test when there were more or none. */
        public Response only() {
            assertThat("answers: " + answers, answers.size(), is(1));
            return answers.getFirst();
        }
    }

    /** {@code GET path} with {@code headers} ("Name: value") from 127.0.0.1:{@code port}, on a new connection. */
    public static Response get(int port, String path, String... headers) throws IOException {
        try (Connection connection = connect(port, TIMEOUT)) {
            connection.sendAndAwaitAnswer(request("GET", path, port, true, headers));
            return connection.read();
        }
    }

    /**
     * HEAD {@code path}, twice on one connection, the second sent right behind the first: the first answer's headers
     * must be followed at once by the second answer's status line. What comes between them is returned as the body;
     * that is where a body in an answer to HEAD, which HTTP forbids, would be. (Reading until the connection closes
     * would not do: the server may keep the socket open after its last byte.)
     */
    public static Response head(int port, String path) throws IOException {
        try (Connection connection = connect(port, TIMEOUT)) {
            connection.sendAndAwaitAnswer(request("HEAD", path, port, false) + request("HEAD", path, port, true));
            Response first = connection.readHead();
            // up to the second answer's status line, the end of the line, or the end of the connection
            ByteArrayOutputStream next = new ByteArrayOutputStream();
            for (int c = connection.in.read(); c >= 0 && c != '\n'; c = connection.in.read()) {
                next.write(c);
            }
            String rest = next.toString(StandardCharsets.UTF_8);
            String body = rest.substring(0, rest.contains("HTTP/1.1 ") ? rest.indexOf("HTTP/1.1 ") : rest.length());
            return new Response(first.status(), body, first.headers());
        }
    }

    /** A connection to 127.0.0.1:{@code port} whose reads wait up to {@code timeout}. */
    public static Connection connect(int port, Duration timeout) throws IOException {
        return new Connection(InetAddress.getByName("127.0.0.1"), port, timeout);
    }

    /** Whether nothing listens on 127.0.0.1:{@code port}: the connection is refused. */
    public static boolean refused(int port) throws IOException {
        return refused(InetAddress.getByName("127.0.0.1"), port);
    }

    /** Whether nothing listens on {@code address}:{@code port}: the connection is refused. */
    public static boolean refused(InetAddress address, int port) throws IOException {
        try {
            new Connection(address, port, TIMEOUT).close();
            return false;
        } catch (ConnectException e) {
            return true;
        }
    }

    /** {@code METHOD path HTTP/1.1}, Host, {@code Connection: close} when {@code close}, {@code headers}. */
    private static String request(String method, String path, int port, boolean close, String... headers) {
        StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n");
        if (close) {
            request.append("Connection: close\r\n");
        }
        for (String header : headers) {
            request.append(header).append("\r\n");
        }
        return request.append("\r\n").toString();
    }

    /** An open socket: what the test writes goes out at once, and each response is read as it comes. */
    public static final class Connection implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;
        private final int port;

        private Connection(InetAddress address, int port, Duration timeout) throws IOException {
            this.socket = new Socket();
            this.port = port;
            try {
                socket.connect(new InetSocketAddress(address, port), CONNECT_MILLIS);
                socket.setSoTimeout((int) timeout.toMillis());
                this.in = new BufferedInputStream(socket.getInputStream());
            } catch (IOException | RuntimeException e) {
                socket.close();
                throw e;
            }
        }

        /** Writes {@code text} (ISO-8859-1, one byte a character) and flushes it. */
        public Connection send(String text) throws IOException {
            return send(text.getBytes(StandardCharsets.ISO_8859_1));
        }

        /** Writes {@code bytes} and flushes them. */
        public Connection send(byte[] bytes) throws IOException {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            return this;
        }

        /** Ends the output: the server sees the end of input, and may still answer. */
        public void halfClose() throws IOException {
            socket.shutdownOutput();
        }

        /**
         * {@code GET path} on this connection, keeping it open, and its response; {@link NoResponseException} when
         * the connection ends or fails before the first byte of an answer (a server closed it meanwhile).
         */
        public Response getOrNoResponse(String path) throws IOException {
            sendAndAwaitAnswer(request("GET", path, port, false));
            return read();
        }

        /** {@code GET path} with {@code headers}, keeping the connection open, and its response. */
        public Response get(String path, String... headers) throws IOException {
            send(request("GET", path, port, false, headers));
            Response response = read();
            if (response == null) {
                throw new EOFException("the connection ended before the response to GET " + path);
            }
            return response;
        }

        /**
         * The next response, read to the end of its body: chunked, by Content-Length, none for 1xx, 204 and 304,
         * else up to the end of the connection. Null when the connection ends before its first byte.
         *
         * @throws MalformedResponseException when the bytes are not an HTTP/1.1 response or end in the middle of one
         */
        public Response read() throws IOException {
            Response head = readHead();
            return head == null ? null : new Response(head.status(), readBody(head), head.headers());
        }

        /** The next response's status line and headers, its body left unread; null at the end, as {@link #read()}. */
        private Response readHead() throws IOException {
            String statusLine = line(true);
            if (statusLine == null) {
                return null;
            }
            Matcher status = STATUS_LINE.matcher(statusLine);
            if (!status.matches()) {
                throw new MalformedResponseException("not an HTTP/1.1 status line: '" + statusLine + "'");
            }
            int code = Integer.parseInt(status.group(1));
            Map<String, String> headers = new TreeMap<>();
            for (String header = line(false); !header.isEmpty(); header = line(false)) {
                int colon = header.indexOf(':');
                if (colon < 0) {
                    throw new MalformedResponseException("a header line without a colon: '" + header + "'");
                }
                headers.put(header.substring(0, colon).trim().toLowerCase(Locale.ROOT), header.substring(colon + 1).trim());
            }
            return new Response(code, "", headers);
        }

        private String readBody(Response head) throws IOException {
            int code = head.status();
            if (code / 100 == 1 || code == 204 || code == 304) {
                return "";
            }
            Map<String, String> headers = head.headers();
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (String.valueOf(headers.get("transfer-encoding")).contains("chunked")) {
                for (int size = chunkSize(); size > 0; size = chunkSize()) {
                    body.write(exactly(size));
                    line(false);
                }
                while (!line(false).isEmpty()) {
                    // a trailer field: read past it to the end of the response
                }
            } else if (headers.containsKey("content-length")) {
                body.write(exactly(Integer.parseInt(headers.get("content-length"))));
            } else {
                body.write(in.readAllBytes());
            }
            return body.toString(StandardCharsets.UTF_8);
        }

        /**
         * Responses until {@code expected} have come and, when {@code untilClosed}, until the server ends the
         * connection (a close or a reset). Fails the test when the read timeout passes first, or when what comes is
         * not HTTP.
         */
        public Responses read(int expected, boolean untilClosed) {
            List<Response> answers = new ArrayList<>();
            boolean closed = false;
            try {
                while (untilClosed || answers.size() < expected) {
                    Response answer = read();
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
            } catch (MalformedResponseException e) {
                throw new AssertionError(e.getMessage() + "; answers before: " + answers, e);
            } catch (IOException e) {
                closed = true;      // reset: the server dropped the connection
            }
            return new Responses(answers, closed);
        }

        /** The bytes as they come, for a test that reads them itself. */
        public InputStream in() {
            return in;
        }

        /** The socket, for a test that sets its options. */
        public Socket socket() {
            return socket;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }

        /**
         * Sends {@code request} and waits for the first byte of the answer. Throws {@link NoResponseException} when
         * the request cannot be written or the connection ends or fails before that byte.
         */
        private void sendAndAwaitAnswer(String request) throws NoResponseException {
            try {
                send(request);
                in.mark(1);
                if (in.read() < 0) {
                    throw new EOFException("the connection ended before a response");
                }
                in.reset();
            } catch (IOException e) {
                throw new NoResponseException(e);
            }
        }

        private int chunkSize() throws IOException {
            String size = line(false);
            try {
                return Integer.parseInt(size.trim(), 16);
            } catch (NumberFormatException e) {
                throw new MalformedResponseException("not a chunk size: '" + size + "'");
            }
        }

        private byte[] exactly(int n) throws IOException {
            byte[] bytes = in.readNBytes(n);
            if (bytes.length < n) {
                throw new MalformedResponseException("connection closed after " + bytes.length + " of " + n
                        + " body bytes");
            }
            return bytes;
        }

        /** A line without its CR LF; null when the connection ends before its first byte and {@code first}. */
        private String line(boolean first) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    if (first && line.size() == 0) {
                        return null;
                    }
                    throw new MalformedResponseException("connection closed in the middle of a response: '"
                            + line.toString(StandardCharsets.ISO_8859_1) + "'");
                }
                if (c != '\r') {
                    line.write(c);
                }
            }
            return line.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** What came back is not an HTTP/1.1 response, or ends in the middle of one. */
    public static final class MalformedResponseException extends IOException {
        private static final long serialVersionUID = 1L;

        MalformedResponseException(String message) {
            super(message);
        }
    }

    /**
     * The connection was accepted by the kernel but closed or reset before a single response byte: no server
     * answered the request, so a client may send it again (RFC 9110, 9.2.2, for idempotent methods).
     */
    public static final class NoResponseException extends IOException {
        private static final long serialVersionUID = 1L;

        NoResponseException(IOException cause) {
            super("no response: " + cause, cause);
        }
    }
}
