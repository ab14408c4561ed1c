package dev.loanruntime.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.helidon.webclient.api.ClientRequest;
import io.helidon.webclient.api.HttpClient;
import io.helidon.webclient.api.HttpClientResponse;
import io.helidon.webclient.api.WebClient;
import io.helidon.webclient.http2.Http2Client;
import io.helidon.webclient.http2.Http2ClientProtocolConfig;

import dev.loanruntime.stages.ServerTiming;

/**
 * Sends GET requests with Helidon's WebClient and times them, over HTTP/1.1 or over HTTP/2 without TLS (h2c, prior
 * knowledge). Thread-safe: every measurement thread (virtual) calls {@link #get} concurrently; a call blocks its
 * thread until the response body has been read.
 */
final class Requester implements AutoCloseable {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** One client for HTTP/1.1; for HTTP/2 one per connection, each carrying its requests as streams. */
    private final List<HttpClient<?>> clients;
    private final AtomicInteger next = new AtomicInteger();
    private final boolean stages;

    /**
     * @param keepAlive   reuse connections; false opens a fresh connection per request and sends
     *                    {@code Connection: close}, as curl does when called once per request
     * @param connections idle connections kept for reuse: at least the number of requests in flight, or the
     *                    ones beyond it are closed after each request and reopened
     */
    Requester(Target target, boolean keepAlive, Duration readTimeout, int connections) {
        this(target, keepAlive, readTimeout, connections, false);
    }

    /** @param stages ask the server for each request's stages ({@code Loan-Timing: on}) and keep its answer */
    Requester(Target target, boolean keepAlive, Duration readTimeout, int connections, boolean stages) {
        this.stages = stages;
        this.clients = List.of(WebClient.builder()
                .baseUri(target.base())
                .keepAlive(keepAlive)
                // Our own cache, so that two measurements in one JVM never share connections.
                .shareConnectionCache(false)
                .connectionCacheSize(Math.max(1, connections))
                .connectTimeout(CONNECT_TIMEOUT)
                .readTimeout(readTimeout)
                .followRedirects(false)
                .build());
    }

    /**
     * HTTP/2 with prior knowledge on {@code connections} connections: each is a client of its own (a shared one
     * would put every stream on one connection), and the requests take them in turn.
     */
    static Requester http2(Target target, Duration readTimeout, int connections) {
        return new Requester(IntStream.range(0, connections).<HttpClient<?>>mapToObj(i -> Http2Client.builder()
                .baseUri(target.base())
                .shareConnectionCache(false)
                .connectTimeout(CONNECT_TIMEOUT)
                .readTimeout(readTimeout)
                .followRedirects(false)
                .protocolConfig(Http2ClientProtocolConfig.builder().priorKnowledge(true).build())
                .build()).toList());
    }

    private Requester(List<HttpClient<?>> clients) {
        this.clients = clients;
        this.stages = false;
    }

    /** Sends {@code GET pathAndQuery} now and measures from now. */
    Outcome get(String pathAndQuery) {
        return get(pathAndQuery, System.nanoTime());
    }

    /** Sends {@code GET pathAndQuery} now and measures from {@code dueNanos} (the intended send time). */
    Outcome get(String pathAndQuery, long dueNanos) {
        try (HttpClientResponse response = request(pathAndQuery).request()) {
            int status = response.status().code();
            response.entity().consume();
            long end = System.nanoTime();
            String timing = stages ? response.headers().first(ServerTiming.HEADER).orElse(null) : null;
            return new Outcome(dueNanos, end, status, null, timing);
        } catch (RuntimeException e) {
            return new Outcome(dueNanos, System.nanoTime(), 0, ErrorKind.of(e), null);
        }
    }

    // Path and query apart: given as one string, the query's '?' would be encoded into the path.
    private ClientRequest<?> request(String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        HttpClient<?> client = clients.size() == 1 ? clients.getFirst()
                : clients.get(Math.floorMod(next.getAndIncrement(), clients.size()));
        ClientRequest<?> request = client.get(q < 0 ? pathAndQuery : pathAndQuery.substring(0, q));
        if (stages) {
            request.header(ServerTiming.ASK, "on");
        }
        if (q < 0) {
            return request;
        }
        for (String pair : pathAndQuery.substring(q + 1).split("&")) {
            int eq = pair.indexOf('=');
            if (!pair.isEmpty()) {
                request.queryParam(eq < 0 ? pair : pair.substring(0, eq), eq < 0 ? "" : pair.substring(eq + 1));
            }
        }
        return request;
    }

    @Override
    public void close() {
        for (HttpClient<?> client : clients) {
            client.closeResource();
        }
    }
}
