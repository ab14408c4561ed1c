package dev.loanruntime.serve;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import dev.loanruntime.http.Json;

/**
 * The monitors on a port of their own, served by platform threads: {@code /runtime}, {@code /observe/metrics} and
 * {@code /observe/health} (and {@code /ready}) answer while every carrier is held and while {@code --limit} refuses
 * work, exactly when they are needed. Helidon 4.5 runs every connection of every listener on a virtual thread (its
 * listeners take no executor), so a stall that holds the carriers holds its observe endpoints too; the JDK's own
 * HTTP server takes any executor. Two platform threads: a scrape or a health check is short, and a few at once
 * queue for a moment rather than add threads. Loopback or the address of {@code --host}, never refused by the
 * overload protections; nothing here changes state.
 */
final class AdminServer implements AutoCloseable {
    private static final int THREADS = 2;
    private static final String ALLOW = "GET, HEAD";
    private final HttpServer server;
    private final ExecutorService executor;
    private final LoanApp app;

    private AdminServer(HttpServer server, ExecutorService executor, LoanApp app) {
        this.server = server;
        this.executor = executor;
        this.app = app;
    }

    /**
     * Listens on {@code host}:{@code port} (0: any free port) for {@code app}'s monitors.
     *
     * @throws IOException when the port cannot be bound
     */
    static AdminServer start(String host, int port, LoanApp app) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 64);
        ExecutorService executor = Executors.newFixedThreadPool(THREADS,
                Thread.ofPlatform().name("loan-admin-", 1).daemon().factory());
        AdminServer admin = new AdminServer(server, executor, app);
        server.setExecutor(executor);
        server.createContext("/", admin::handle);
        server.start();
        return admin;
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getPath();
            if (!route(path)) {
                send(exchange, 404, Json.CONTENT_TYPE, Json.bytes(new Json.Error("route_not_found",
                        "the admin port serves /runtime, /observe/metrics and /observe/health")));
                return;
            }
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", ALLOW);
                send(exchange, 405, Json.CONTENT_TYPE, Json.bytes(Json.Error.of("method_not_allowed")));
                return;
            }
            switch (path) {
                case "/runtime" -> send(exchange, 200, Json.CONTENT_TYPE, Json.bytes(app.report()));
                case "/observe/metrics" -> metrics(exchange);
                default -> health(exchange);
            }
        } catch (RuntimeException e) {
            // the monitors' own failure: a 500 with no details, as on the service's port
            send(exchange, 500, Json.CONTENT_TYPE, Json.bytes(Json.Error.of("internal_error")));
        }
    }

    private static boolean route(String path) {
        return switch (path) {
            case "/runtime", "/observe/metrics", "/observe/health", "/observe/health/ready" -> true;
            default -> false;
        };
    }

    private void metrics(HttpExchange exchange) throws IOException {
        Map<String, List<String>> query = query(exchange.getRequestURI().getRawQuery());
        Optional<String> text = app.metrics().text(query.getOrDefault("scope", List.of()),
                query.getOrDefault("name", List.of()));
        if (text.isEmpty()) {
            send(exchange, 404, Json.CONTENT_TYPE, Json.bytes(new Json.Error("metric_not_found",
                    "no meter matches the query")));
        } else {
            send(exchange, 200, MetricsEndpoint.CONTENT_TYPE, text.get().getBytes(StandardCharsets.UTF_8));
        }
    }

    private void health(HttpExchange exchange) throws IOException {
        Readiness.Report report = app.readiness().report();
        send(exchange, report.up() ? 200 : 503, Json.CONTENT_TYPE, Json.bytes(report));
    }

    /** {@code a=1&a=2&b=x} as {@code {a: [1, 2], b: [x]}}. */
    private static Map<String, List<String>> query(String raw) {
        Map<String, List<String>> query = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return query;
        }
        for (String pair : raw.split("&")) {
            String[] nameAndValue = pair.split("=", 2);
            query.computeIfAbsent(URLDecoder.decode(nameAndValue[0], StandardCharsets.UTF_8), n -> new ArrayList<>())
                    .add(nameAndValue.length == 2 ? URLDecoder.decode(nameAndValue[1], StandardCharsets.UTF_8) : "");
        }
        return query;
    }

    /** Sends {@code body} with its length (none for HEAD, which gets the headers alone). */
    private static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        // -1: no body; otherwise the exact length, so the answer is sized, not chunked
        exchange.sendResponseHeaders(status, head ? -1 : body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** Stops listening at once and ends the threads; a scrape in flight is cut off. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
