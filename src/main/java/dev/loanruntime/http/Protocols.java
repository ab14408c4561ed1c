package dev.loanruntime.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataReader;
import io.helidon.common.concurrency.limits.Limit;
import io.helidon.http.HttpPrologue;
import io.helidon.http.RequestException;
import io.helidon.http.WritableHeaders;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http1.spi.Http1Upgrader;
import io.helidon.webserver.http2.Http2Config;
import io.helidon.webserver.http2.Http2ConnectionSelector;
import io.helidon.webserver.http2.Http2Upgrader;
import io.helidon.webserver.spi.ProtocolConfig;
import io.helidon.webserver.spi.ServerConnection;
import io.helidon.webserver.spi.ServerConnectionSelector;

import dev.loanruntime.overload.StreamLimit;

/**
 * One connection selector for HTTP/1.1 and HTTP/2 with prior knowledge (h2c). Helidon, given two selectors, reads a
 * connection's first bytes itself and closes one that neither claims (a malformed or HTTP/1.0 request) without an
 * answer; given one, it hands the connection over before reading a byte. This is that one: its connection reads
 * until the bytes either are HTTP/2's preface or cannot become it, and hands everything else to HTTP/1.1, which
 * answers a malformed request with its JSON 400 or 505 as before. Nothing is consumed: the chosen protocol reads the
 * connection from its first byte. An HTTP/2 connection, by prior knowledge or by {@code Upgrade: h2c}, is read
 * through {@link FrameGuard}, and meets the listener's concurrency limit through {@link StreamLimit}, so that a refused
 * stream is answered as on HTTP/1.1.
 */
public final class Protocols implements ServerConnectionSelector {
    /** What an HTTP/2 client sends first, before any frame (RFC 9113, section 3.4). */
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerConnectionSelector http1;
    private final ServerConnectionSelector http2;
    private final long maxHeaderBlock;

    /** {@code http1}, which should upgrade by {@link #upgrader}, and HTTP/2 with {@code http2}'s settings. */
    public Protocols(ServerConnectionSelector http1, Http2Config http2) {
        this.http1 = http1;
        this.http2 = Http2ConnectionSelector.builder().http2Config(http2).build();
        this.maxHeaderBlock = http2.maxHeaderListSize();
    }

    /**
     * {@code Upgrade: h2c} to HTTP/2 with {@code http2}'s settings, its frames read through {@link FrameGuard} and
     * its streams meeting {@link StreamLimit}, as a connection with prior knowledge.
     */
    public static Http1Upgrader upgrader(Http2Config http2) {
        Http1Upgrader upgrader = Http2Upgrader.create(http2);
        return new Http1Upgrader() {
            @Override
            public String supportedProtocol() {
                return upgrader.supportedProtocol();
            }

            @Override
            public ServerConnection upgrade(ConnectionContext ctx, HttpPrologue prologue, WritableHeaders<?> headers) {
                ServerConnection upgraded = upgrader.upgrade(FrameGuard.guarded(ctx, http2.maxHeaderListSize()),
                        prologue, headers);
                return upgraded == null ? null : new LimitedStreams(upgraded);
            }
        };
    }

    /**
     * Makes {@code selector} the listener's only one. Helidon builds a selector for every protocol configuration it
     * is given, and one from each config node under server.protocols (http_1_1, http_2) unless a configuration of that
     * name is listed: these placeholders claim both names without being a protocol's configuration, so no selector
     * is built for them.
     */
    public static void install(WebServerConfig.Builder server, ServerConnectionSelector selector) {
        server.protocolsDiscoverServices(false)
                .protocols(List.of(new Claimed("http_1_1", "http_1_1"), new Claimed("http_2", "http_2")))
                .addConnectionSelector(selector);
    }

    @Override
    public int bytesToIdentifyConnection() {
        return 0;
    }

    @Override
    public Support supports(BufferData request) {
        return Support.SUPPORTED;
    }

    @Override
    public Set<String> supportedApplicationProtocols() {
        Set<String> both = new HashSet<>(http1.supportedApplicationProtocols());
        both.addAll(http2.supportedApplicationProtocols());
        return both;
    }

    @Override
    public ServerConnection connection(ConnectionContext ctx) {
        return new Undecided(ctx);
    }

    /**
     * A connection until its first bytes say which protocol it speaks. While it waits for them it is idle: Helidon's
     * idle check and its stop close it the way they close an HTTP/1.1 connection waiting for a request.
     */
    private final class Undecided implements ServerConnection {
        private final ConnectionContext ctx;
        private final long since = System.nanoTime();
        private volatile ServerConnection chosen;
        private volatile Thread reading;
        private volatile boolean closed;

        Undecided(ConnectionContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void handle(Limit limit) throws InterruptedException {
            reading = Thread.currentThread();
            boolean h2;
            try {
                if (closed) {
                    throw new CloseConnectionException("closed before its first byte");
                }
                // compares what has arrived and reads more only while it still matches
                h2 = ctx.dataReader().startsWith(PREFACE);
            } catch (DataReader.InsufficientDataAvailableException e) {
                throw new CloseConnectionException("closed by the client before a request", e);
            } catch (RequestException | CloseConnectionException e) {
                throw e;
            } catch (RuntimeException e) {
                if (closed) {   // the interrupt of close(): the socket is closed under the read
                    throw new CloseConnectionException("closed while waiting for its first bytes", e);
                }
                throw e;
            } finally {
                reading = null;
            }
            ServerConnection connection = h2
                    ? new LimitedStreams(http2.connection(FrameGuard.guarded(ctx, maxHeaderBlock)))
                    : http1.connection(ctx);
            chosen = connection;
            if (closed) {
                connection.close(true);
            }
            connection.handle(limit);
        }

        @Override
        public Duration idleTime() {
            ServerConnection connection = chosen;
            return connection != null ? connection.idleTime() : Duration.ofNanos(System.nanoTime() - since);
        }

        @Override
        public void close(boolean interrupt) {
            ServerConnection connection = chosen;
            if (connection != null) {
                connection.close(interrupt);
                return;
            }
            // waiting for a first byte is idle: interrupted whatever is asked, as Helidon's HTTP/1.1 does
            closed = true;
            Thread thread = reading;
            if (thread != null) {
                thread.interrupt();
            }
        }
    }

    /** An HTTP/2 connection handed {@link StreamLimit} around the listener's concurrency limit. */
    private record LimitedStreams(ServerConnection connection) implements ServerConnection {
        @Override
        public void handle(Limit limit) throws InterruptedException {
            connection.handle(new StreamLimit(limit));
        }

        @Override
        public Duration idleTime() {
            return connection.idleTime();
        }

        @Override
        public void close(boolean interrupt) {
            connection.close(interrupt);
        }
    }

    /** A protocol configuration that only claims its type and name. */
    private record Claimed(String name, String type) implements ProtocolConfig {
    }
}
