import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/*
 * A service that knows nothing of loan-runtime, for the agent (AgentIT, experiment 18): the JDK's HTTP server with a
 * virtual thread per request, and three routes: /cheap, /work?ms=N (N ms of CPU on the request's virtual thread) and
 * /pooled?ms=N (the same on a pool of two platform threads, the virtual thread waiting). Nothing but the JDK:
 *   java experiments/peers/PlainVirtualThreadApp.java PORT        (0: any free port)
 * Prints "plain-app serving address=http://127.0.0.1:P" once it listens.
 */
public final class PlainVirtualThreadApp {
    private PlainVirtualThreadApp() {
    }

    public static void main(String[] args) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), 64);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        server.createContext("/cheap", exchange -> send(exchange, "cheap"));
        server.createContext("/work", exchange -> {
            spin(ms(exchange));
            send(exchange, "worked");
        });
        server.createContext("/pooled", exchange -> {
            long ms = ms(exchange);
            try {
                pool.submit(() -> spin(ms)).get();
            } catch (InterruptedException | ExecutionException e) {
                throw new IOException(e);
            }
            send(exchange, "pooled");
        });
        server.start();
        System.out.println("plain-app serving address=http://127.0.0.1:" + server.getAddress().getPort());
    }

    private static long ms(HttpExchange exchange) {
        String query = exchange.getRequestURI().getQuery();
        return query != null && query.startsWith("ms=") ? Long.parseLong(query.substring(3)) : 0;
    }

    /** Keeps its thread on a CPU for {@code ms}: work that never parks. */
    private static void spin(long ms) {
        long end = System.nanoTime() + ms * 1_000_000;
        long x = 0;
        while (System.nanoTime() < end) {
            x += x * 31 + 7;
        }
        if (x == 42) {
            System.out.println();
        }
    }

    private static void send(HttpExchange exchange, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
