package dev.loanruntime.serve;

import java.io.IOException;
import java.io.InputStream;
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
 * The monitors on a port of their own, served by platform threads: {@code /runtime}, {@code /observe/metrics},
 * {@code /observe/health} (and {@code /ready}) and the live page ({@code /live}, which polls {@code /runtime})
 * answer while every carrier is held and while {@code --limit} refuses work, exactly when they are needed. The page
 * sends its heavy requests and its light load to the service's port, as any client would. Helidon 4.5 runs every
 * connection of every listener on a virtual thread (its listeners take no executor), so a stall that holds the
 * carriers holds its observe endpoints too; the JDK's own HTTP server takes any executor. Two platform threads: a
 * scrape or a health check is short, and a few at once queue for a moment rather than add threads. It binds the
 * address of {@code --host}; the overload protections never refuse it; nothing here changes state.
 */
final class AdminServer implements AutoCloseable {
    private static final int THREADS = 2;
    /**
     * Answers a second at most, of every kind together: an open live page asks once a second, a health check about
     * as often, a scrape far less. Beyond it the admin port answers 503, so that however many pages are open, what the
     * monitors cost the server stays bounded.
     */
    static final int ANSWERS_PER_SECOND = 50;
    private static final String ALLOW = "GET, HEAD";
    /** The live page's files, from the class path, by the name they are asked for under /live/. */
    private static final Map<String, String> PAGE = Map.of(
            "live.html", "text/html; charset=utf-8",
            "live.js", "text/javascript; charset=utf-8",
            "uPlot.iife.min.js", "text/javascript; charset=utf-8",
            "uPlot.min.css", "text/css; charset=utf-8",
            "uPlot-LICENSE", "text/plain; charset=utf-8");
    private final HttpServer server;
    private final ExecutorService executor;
    private final LoanApp app;
    private final byte[] config;
    /** The answers the port may still give now: a bucket of {@link #ANSWERS_PER_SECOND}, refilled as time passes. */
    private double allowance = ANSWERS_PER_SECOND;
    private long refilledAt = System.nanoTime();

    private AdminServer(HttpServer server, ExecutorService executor, LoanApp app, int servicePort) {
        this.server = server;
        this.executor = executor;
        this.app = app;
        this.config = Json.bytes(Map.of("servicePort", servicePort));
    }

    /**
     * Listens on {@code host}:{@code port} (0: any free port) for {@code app}'s monitors, whose service listens on
     * {@code servicePort} (where the live page sends its requests).
     *
     * @throws IOException when the port cannot be bound
     */
    static AdminServer start(String host, int port, LoanApp app, int servicePort) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 64);
        ExecutorService executor = Executors.newFixedThreadPool(THREADS,
                Thread.ofPlatform().name("loan-admin-", 1).daemon().factory());
        AdminServer admin = new AdminServer(server, executor, app, servicePort);
        server.setExecutor(executor);
        server.createContext("/", admin::handle);
        server.start();
        return admin;
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getPath();
            if (!admitted()) {
                exchange.getResponseHeaders().set("Retry-After", "1");
                send(exchange, 503, Json.CONTENT_TYPE, Json.bytes(new Json.Error("admin_busy", "the admin port "
                        + "answers " + ANSWERS_PER_SECOND + " requests a second at most (an open live page asks once a "
                        + "second); retry later")));
                return;
            }
            if (!route(path)) {
                send(exchange, 404, Json.CONTENT_TYPE, Json.bytes(new Json.Error("route_not_found",
                        "the admin port serves /runtime, /observe/metrics, /observe/health and /live")));
                return;
            }
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", ALLOW);
                send(exchange, 405, Json.CONTENT_TYPE, Json.bytes(Json.Error.of("method_not_allowed")));
                return;
            }
            switch (path) {
                case "/" -> {
                    exchange.getResponseHeaders().set("Location", "/live");
                    send(exchange, 302, Json.CONTENT_TYPE, Json.bytes(Map.of("live", "/live")));
                }
                case "/runtime" -> send(exchange, 200, Json.CONTENT_TYPE, Json.bytes(app.report()));
                case "/observe/metrics" -> metrics(exchange);
                case "/observe/health", "/observe/health/ready" -> health(exchange);
                case "/live/config" -> send(exchange, 200, Json.CONTENT_TYPE, config);
                default -> page(exchange, path.equals("/live") ? "live.html" : path.substring("/live/".length()));
            }
        } catch (RuntimeException e) {
            // the monitors' own failure: a 500 with no details, as on the service's port (unless an answer began)
            if (exchange.getResponseCode() == -1) {
                send(exchange, 500, Json.CONTENT_TYPE, Json.bytes(Json.Error.of("internal_error")));
            }
        } finally {
            exchange.close();
        }
    }

    /** Whether this request fits in the allowance, which it then takes from. */
    private synchronized boolean admitted() {
        long now = System.nanoTime();
        allowance = Math.min(ANSWERS_PER_SECOND, allowance + (now - refilledAt) * (ANSWERS_PER_SECOND / 1e9));
        refilledAt = now;
        if (allowance < 1) {
            return false;
        }
        allowance -= 1;
        return true;
    }

    private static boolean route(String path) {
        return switch (path) {
            case "/", "/runtime", "/observe/metrics", "/observe/health", "/observe/health/ready", "/live",
                 "/live/config" -> true;
            default -> path.startsWith("/live/") && PAGE.containsKey(path.substring("/live/".length()));
        };
    }

    /** One file of the live page, from the class path. */
    private static void page(HttpExchange exchange, String name) throws IOException {
        try (InputStream in = AdminServer.class.getResourceAsStream("/dev/loanruntime/live/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the live page's " + name + " is not on the class path");
            }
            send(exchange, 200, PAGE.get(name), in.readAllBytes());
        }
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
