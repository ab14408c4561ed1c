package dev.loanruntime.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** A small blocking HTTP/1.1 client for tests: real sockets, JSON bodies parsed with Jackson. */
public final class Http implements AutoCloseable {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .build();
    private final String base;

    /** A client for absolute URIs. */
    public Http() {
        this("");
    }

    /** A client whose paths are relative to {@code base}, e.g. {@code http://127.0.0.1:8430}. */
    public Http(String base) {
        this.base = base;
    }

    public Response get(String path, String... headers) {
        return send("GET", path, headers);
    }

    public Response post(String path, String body, String... headers) {
        return send(HttpRequest.newBuilder(URI.create(base + path))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json"), headers);
    }

    public Response send(String method, String path, String... headers) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).method(method, HttpRequest.BodyPublishers.noBody()),
                headers);
    }

    /** A login body for {@code member} and {@code password}. */
    public static String credentials(String member, String password) {
        return "{\"member\":\"" + member + "\",\"password\":\"" + password + "\"}";
    }

    private Response send(HttpRequest.Builder request, String... headers) {
        if (headers.length > 0) {
            request.headers(headers);
        }
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = client.send(request.timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body(), response.headers(),
                    Duration.ofNanos(System.nanoTime() - start));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        client.close();
    }

    /** A response: status, raw body, headers and how long it took. */
    public record Response(int status, String body, HttpHeaders headers, Duration took) {
        /** The body parsed as JSON (a missing node when the body is empty). */
        public JsonNode json() {
            if (body.isEmpty()) {
                return MAPPER.missingNode();
            }
            try {
                return MAPPER.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("body is not JSON: " + body, e);
            }
        }

        public String text(String field) {
            return json().path(field).asText();
        }

        public long number(String field) {
            return json().path(field).asLong();
        }

        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }
    }
}
