package dev.loanruntime.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 request on a fresh connection, written by hand so that a test controls when each byte goes out,
 * timed from before the connect to the response's last byte. The connection is closed after the response.
 */
public final class TimedHttp {
    private TimedHttp() {
    }

    /** A response: status, headers by lower-case name, body, and the client's milliseconds. */
    public record Response(int status, Map<String, String> headers, String body, double clientMillis) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** {@code GET path} with {@code headers} ("Name: value"), all sent at once. */
    public static Response get(int port, String path, String... headers) throws IOException {
        return get(port, path, Duration.ZERO, headers);
    }

    /**
     * {@code GET path}: the request line at once, the header block {@code headerDelay} later (a slow client). The
     * delay is the stimulus under test, not a wait for the server.
     */
    public static Response get(int port, String path, Duration headerDelay, String... headers) throws IOException {
        long start = System.nanoTime();
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            if (!headerDelay.isZero()) {
                Thread.sleep(headerDelay);
            }
            StringBuilder request = new StringBuilder("Host: 127.0.0.1\r\nConnection: close\r\n");
            for (String header : headers) {
                request.append(header).append("\r\n");
            }
            out.write(request.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return read(socket.getInputStream(), start);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** A kept-alive connection: requests one after the other, each timed from its first byte to its last. */
    public static final class KeptAlive implements AutoCloseable {
        private final Socket socket;

        public KeptAlive(int port) throws IOException {
            this.socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(60_000);
        }

        public Response get(String path, String... headers) throws IOException {
            long start = System.nanoTime();
            StringBuilder request = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            for (String header : headers) {
                request.append(header).append("\r\n");
            }
            socket.getOutputStream().write(request.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return read(socket.getInputStream(), start);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /**
     * To the body's last byte by Content-Length: Helidon leaves the socket open after 'Connection: close' until the
     * client closes it.
     */
    private static Response read(InputStream in, long start) throws IOException {
        String head = readHead(in);
        Response response = parse(head, "", 0);
        String length = response.header("Content-Length");
        byte[] body = in.readNBytes(length == null ? 0 : Integer.parseInt(length));
        double millis = (System.nanoTime() - start) / 1e6;
        return parse(head, new String(body, StandardCharsets.UTF_8), millis);
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int last4 = 0;
        for (int c; (c = in.read()) >= 0; ) {
            bytes.write(c);
            last4 = (last4 << 8) | c;
            if (last4 == 0x0d0a0d0a) {
                return bytes.toString(StandardCharsets.ISO_8859_1);
            }
        }
        throw new IOException("no complete response head: '" + bytes.toString(StandardCharsets.ISO_8859_1) + "'");
    }

    private static Response parse(String head, String body, double millis) {
        String[] lines = head.strip().split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        return new Response(status, headers, body, millis);
    }
}
