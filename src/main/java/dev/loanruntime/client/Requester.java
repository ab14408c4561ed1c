package dev.loanruntime.client;

import java.time.Duration;

import io.helidon.webclient.api.HttpClientRequest;
import io.helidon.webclient.api.HttpClientResponse;
import io.helidon.webclient.api.ReleasableResource;
import io.helidon.webclient.api.WebClient;

import dev.loanruntime.stages.ServerTiming;

/**
 * Sends GET requests with Helidon's WebClient and times them. Thread-safe: every measurement thread (virtual)
 * calls {@link #get} concurrently; a call blocks its thread until the response body has been read.
 */
final class Requester implements AutoCloseable {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private final WebClient client;
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
        this.client = WebClient.builder()
                .baseUri(target.base())
                .keepAlive(keepAlive)
                // Our own cache, so that two measurements in one JVM never share connections.
                .shareConnectionCache(false)
                .connectionCacheSize(Math.max(1, connections))
                .connectTimeout(CONNECT_TIMEOUT)
                .readTimeout(readTimeout)
                .followRedirects(false)
                .build();
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
    private HttpClientRequest request(String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        HttpClientRequest request = client.get(q < 0 ? pathAndQuery : pathAndQuery.substring(0, q));
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
        if (client instanceof ReleasableResource resource) {
            resource.closeResource();
        }
    }
}
