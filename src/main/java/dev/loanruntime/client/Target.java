package dev.loanruntime.client;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

import dev.loanruntime.cli.Defaults;
import dev.loanruntime.cli.UsageError;

/**
 * The server a measurement client talks to: an {@code http://host:port} base URI.
 *
 * @param base scheme, host and port, without a path
 */
record Target(URI base) {
    static final String DEFAULT = Defaults.URL;

    /** Parses {@code --url}; the error names the bad value and the expected form. */
    static Target parse(String url) {
        String expected = "an http URL such as " + DEFAULT;
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw UsageError.invalid("--url", expected, url);
        }
        boolean hasPath = uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !"/".equals(uri.getRawPath());
        if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || hasPath
                || uri.getRawQuery() != null) {
            throw UsageError.invalid("--url", expected, url);
        }
        int port = uri.getPort() == -1 ? 80 : uri.getPort();
        return new Target(URI.create("http://" + uri.getHost() + ":" + port));
    }

    /** Checks a path option: it must start with '/'. Returns the path. */
    static String path(String option, String path) {
        if (path == null || !path.startsWith("/")) {
            throw UsageError.invalid(option, "a path starting with '/' such as /books", path);
        }
        return path;
    }

    /**
     * Opens and closes one TCP connection, so that a wrong port or a stopped server is one clear line before any
     * measurement starts. Blocks the caller for at most {@code timeout}.
     *
     * @throws IllegalArgumentException naming the URL and the reason
     */
    void requireReachable(Duration timeout) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), (int) timeout.toMillis());
        } catch (IOException e) {
            throw UsageError.invalid("--url", "cannot connect to " + base + " ("
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                    + "); is the server running there?");
        }
    }

    @Override
    public String toString() {
        return base.toString();
    }
}
