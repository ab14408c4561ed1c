package dev.loanruntime.serve;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.helidon.config.Config;


/**
 * Does once what a worker's first requests would otherwise pay for: loads and links the classes of start-up and
 * of the request path, opens the store, and lets the JIT see the cheap routes. It starts a server of its own on
 * an ephemeral loopback port (never the cluster's port, never with {@code SO_REUSEPORT}: nothing outside reaches
 * it), requests each route that allows it ({@link LoanServer#warmUpTargets()}: cheap, and changes nothing, so a
 * spare counts no loan in a store it shares) and a path no route has a few times over real sockets, and stops it.
 * Used by a cluster's spare before it waits to be promoted, and as the training run of the JDK's AOT cache. Blocks
 * the calling thread.
 */
final class WarmUp {
    /** A path no route has: the 404 answer. */
    static final String NO_ROUTE = "/no-such-route";
    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)\r\ncontent-length: *(\\d+)");

    private WarmUp() {
    }

    /** Serves {@code rounds} requests of each route on a private listener; returns how long it took, in ms. */
    static long run(ServeOptions options, Config config, int rounds) {
        long started = System.nanoTime();
        try (LoanServer server = LoanServer.start(options.alone(InetAddress.getLoopbackAddress().getHostAddress(), 0),
                config)) {
            List<String> targets = new ArrayList<>(server.warmUpTargets());
            targets.add(NO_ROUTE);
            for (int i = 0; i < rounds; i++) {
                for (String path : targets) {
                    get(server.port(), path);
                }
            }
        }
        return (System.nanoTime() - started) / 1_000_000;
    }

    /** One GET; reads exactly its response, since the server may keep the socket open after its last byte. */
    private static void get(int port, String path) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder seen = new StringBuilder();
            int headerEnd = -1;
            int b;
            while ((b = in.read()) >= 0) {
                seen.append((char) b);
                if (headerEnd < 0 && seen.toString().endsWith("\r\n\r\n")) {
                    headerEnd = seen.length();
                    Matcher length = CONTENT_LENGTH.matcher(seen);
                    if (length.find()) {
                        in.readNBytes(Integer.parseInt(length.group(1)));
                        return;
                    }
                } else if (headerEnd > 0 && seen.toString().endsWith("\r\n0\r\n\r\n")) {
                    return; // the last chunk of a chunked body
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("warm-up request " + path + " failed", e);
        }
    }
}
