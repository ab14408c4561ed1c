package dev.loanruntime.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** A small blocking HTTP/1.1 client for tests: real sockets, JSON bodies parsed with Jackson. */
public final class Http implements AutoCloseable {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .build();

    /** A status and a body parsed as JSON (a missing node when the body is empty). */
    public record Response(int status, JsonNode json, Duration took) {
        public String text(String field) {
            return json.path(field).asText();
        }

        public long number(String field) {
            return json.path(field).asLong();
        }
    }

    public Response get(String uri, String... headers) {
        return send(HttpRequest.newBuilder(URI.create(uri)).GET(), headers);
    }

    public Response post(String uri, String body, String... headers) {
        return send(HttpRequest.newBuilder(URI.create(uri)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json"), headers);
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
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            String body = response.body();
            JsonNode json = body.isEmpty() ? MAPPER.missingNode() : MAPPER.readTree(body);
            return new Response(response.statusCode(), json, took);
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
}
