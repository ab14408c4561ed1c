package dev.loanruntime.agent;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * {@code GET /metrics} of the agent, in Prometheus' text format, served by the JDK's HTTP server on two platform
 * threads of its own: it answers while every carrier of the application is held, which is when it matters. Every
 * thread it starts is a daemon (the server's dispatcher takes that from the thread that starts it, so it is started
 * from one): the agent never keeps the application's JVM alive.
 */
final class MetricsServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor;
    private final Supplier<String> text;

    private MetricsServer(HttpServer server, ExecutorService executor, Supplier<String> text) {
        this.server = server;
        this.executor = executor;
        this.text = text;
    }

    /** Listens on {@code host}:{@code port} (0: any free one); throws when it cannot bind. */
    static MetricsServer start(String host, int port, Supplier<String> text) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
        ExecutorService executor = Executors.newFixedThreadPool(2,
                Thread.ofPlatform().name("loan-agent-metrics-", 1).daemon().factory());
        MetricsServer metrics = new MetricsServer(server, executor, text);
        server.setExecutor(executor);
        server.createContext("/", metrics::handle);
        Thread starter = Thread.ofPlatform().daemon().name("loan-agent-start").start(server::start);
        try {
            starter.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return metrics;
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            String method = exchange.getRequestMethod();
            if (!exchange.getRequestURI().getPath().equals("/metrics")) {
                send(exchange, 404, "the agent serves /metrics only\n");
            } else if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                send(exchange, 405, "GET or HEAD\n");
            } else {
                exchange.getResponseHeaders().set("Content-Type", PrometheusText.CONTENT_TYPE);
                byte[] body = text.get().getBytes(StandardCharsets.UTF_8);
                boolean head = method.equals("HEAD");
                exchange.sendResponseHeaders(200, head ? -1 : body.length);
                if (!head) {
                    exchange.getResponseBody().write(body);
                }
            }
        } catch (RuntimeException e) {
            if (exchange.getResponseCode() == -1) {
                send(exchange, 500, "the agent's figures could not be read\n");
            }
        } finally {
            exchange.close();
        }
    }

    private static void send(HttpExchange exchange, int status, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
