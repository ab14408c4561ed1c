package dev.loanruntime.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One HTTP/1.1 request without a body on a new connection ({@code Connection: close}). Several processes share a
 * port and the kernel picks one per connection, so a test that wants to see the spread must not reuse connections,
 * which any pooling client would do. Byte for byte: for HEAD, whatever comes after the headers until the server
 * closes the connection is the body, which a client's repairs would hide.
 */
public final class RawHttp {
    private static final Pattern PID = Pattern.compile("\"pid\":(\\d+)");

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
    }

    /** GET {@code path} from 127.0.0.1:{@code port}; throws when the connection fails or is reset. */
    public static Response get(int port, String path) throws IOException {
        return exchange(port, request("GET", path, port, true), false);
    }

    /**
     * HEAD {@code path}, twice on one connection, the second sent right behind the first: the first answer's headers
     * must be followed at once by the second answer's status line. What comes between them is returned as the body;
     * that is where a body in an answer to HEAD, which HTTP forbids, would be. (Reading until the connection closes
     * would not do: the server may keep the socket open after its last byte.)
     */
    public static Response head(int port, String path) throws IOException {
        return exchange(port, request("HEAD", path, port, false) + request("HEAD", path, port, true), true);
    }

    private static String request(String method, String path, int port, boolean last) {
        return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
                + (last ? "Connection: close\r\n" : "") + "\r\n";
    }

    private static Response exchange(int port, String request, boolean head) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(30_000);
            // Read exactly one response: the server may keep the socket open after its last byte.
            InputStream in = new BufferedInputStream(socket.getInputStream());
            String statusLine;
            try {
                OutputStream out = socket.getOutputStream();
                out.write(request.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                statusLine = line(in);
            } catch (IOException e) {
                throw new NoResponseException(e);
            }
            if (!statusLine.startsWith("HTTP/1.1 ")) {
                throw new IOException("not an HTTP response: '" + statusLine + "'");
            }
            Map<String, String> headers = new TreeMap<>();
            for (String header = line(in); !header.isEmpty(); header = line(in)) {
                int colon = header.indexOf(':');
                headers.put(header.substring(0, colon).trim().toLowerCase(Locale.ROOT), header.substring(colon + 1).trim());
            }
            int length = headers.containsKey("content-length") ? Integer.parseInt(headers.get("content-length")) : -1;
            boolean chunked = String.valueOf(headers.get("transfer-encoding")).contains("chunked");
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (head) {
                // up to the second answer's status line, the end of the line, or the end of the connection
                ByteArrayOutputStream next = new ByteArrayOutputStream();
                for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
                    next.write(c);
                }
                String rest = next.toString(StandardCharsets.UTF_8);
                body.write(rest.substring(0, rest.contains("HTTP/1.1 ") ? rest.indexOf("HTTP/1.1 ") : rest.length())
                        .getBytes(StandardCharsets.UTF_8));
            } else if (chunked) {
                for (int size = Integer.parseInt(line(in).trim(), 16); size > 0; size = Integer.parseInt(line(in).trim(), 16)) {
                    body.write(exactly(in, size));
                    line(in);
                }
            } else if (length >= 0) {
                body.write(exactly(in, length));
            } else {
                body.write(in.readAllBytes());
            }
            return new Response(Integer.parseInt(statusLine.substring(9, 12)), body.toString(StandardCharsets.UTF_8),
                    headers);
        }
    }

    private static byte[] exactly(InputStream in, int n) throws IOException {
        byte[] bytes = in.readNBytes(n);
        if (bytes.length < n) {
            throw new EOFException("connection closed after " + bytes.length + " of " + n + " body bytes");
        }
        return bytes;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("connection closed in the middle of a response: '" + line + "'");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
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
