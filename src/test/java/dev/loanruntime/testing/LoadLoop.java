package dev.loanruntime.testing;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bounded steady load for fault tests: a few platform threads, each sending {@code GET path} on a new connection
 * per request until {@link #stop()} or a deadline. Counts successes and failures (a refused connection, a broken
 * response or a status other than 200) and keeps the first failures' messages. With {@link Retry#ONCE}, a connection
 * reset before any response byte is sent again, once, and counted in {@link #retried()}; with {@link Retry#NEVER}
 * it is a failure like any other.
 */
public final class LoadLoop {
    private final String path;
    private final Retry retry;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger ok = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger retried = new AtomicInteger();
    private final AtomicInteger closedByServer = new AtomicInteger();
    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    private final List<Thread> clients = new ArrayList<>();

    /** What a client does with a request whose connection ended before any response byte. */
    public enum Retry {
        /**
         * Sends it again, once, as an HTTP client may with an idempotent request: no server answered it. The kernel
         * resets connections still queued on a listener that closes (see README), so a rolling restart may cause a
         * few of these.
         */
        ONCE,
        /** Counts it as failed: for requests that a server had taken and must finish. */
        NEVER
    }

    private LoadLoop(String path, Retry retry) {
        this.path = path;
        this.retry = retry;
    }

    /** {@code clients} threads sending {@code GET /books} to 127.0.0.1:{@code port}, each retrying once. */
    public static LoadLoop start(int port, int clients, Duration limit) {
        return start(port, "/books", clients, Duration.ZERO, limit, Retry.ONCE);
    }

    /**
     * {@code clients} threads sending {@code GET path}, the first at once and each next one {@code stagger} later, so
     * that slow requests overlap evenly; they stop by themselves after {@code limit}.
     */
    public static LoadLoop start(int port, String path, int clients, Duration stagger, Duration limit, Retry retry) {
        LoadLoop load = new LoadLoop(path, retry);
        long deadline = System.nanoTime() + limit.toNanos();
        for (int i = 0; i < clients; i++) {
            Duration delay = stagger.multipliedBy(i);
            load.clients.add(Thread.ofPlatform().daemon().name("load-" + i).start(() -> {
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException e) {
                    return;
                }
                while (load.running.get() && System.nanoTime() < deadline) {
                    load.once(port);
                }
            }));
        }
        return load;
    }

    /**
     * {@code clients} threads sending {@code GET path} as a browser or a pooled HTTP client does: each keeps one
     * connection and sends its requests on it one after another, and opens a new one when an answer says
     * {@code Connection: close} or the connection ends. A request whose reused connection ended before any byte of an
     * answer is sent again once, on a new connection (RFC 9112, 9.3.1: the server closed an idle connection as the
     * request went out), and counted in {@link #retried()}; on a new connection that is a failure.
     */
    public static LoadLoop keepAlive(int port, String path, int clients, Duration limit) {
        LoadLoop load = new LoadLoop(path, Retry.ONCE);
        long deadline = System.nanoTime() + limit.toNanos();
        for (int i = 0; i < clients; i++) {
            load.clients.add(Thread.ofPlatform().daemon().name("keep-alive-" + i).start(() -> {
                RawHttp.Connection connection = null;
                while (load.running.get() && System.nanoTime() < deadline) {
                    connection = load.onceKept(port, connection);
                }
                closeQuietly(connection);
            }));
        }
        return load;
    }

    /** One request on {@code connection} (a new one when null); returns the connection to use next, or null. */
    private RawHttp.Connection onceKept(int port, RawHttp.Connection connection) {
        RawHttp.Response response;
        try {
            if (connection == null) {
                connection = RawHttp.connect(port, Duration.ofSeconds(30));
                response = connection.getOrNoResponse(path);
            } else {
                try {
                    response = connection.getOrNoResponse(path);
                } catch (RawHttp.NoResponseException e) {
                    closeQuietly(connection);
                    retried.incrementAndGet();
                    connection = RawHttp.connect(port, Duration.ofSeconds(30));
                    response = connection.getOrNoResponse(path);
                }
            }
        } catch (IOException e) {
            record(e.toString());
            closeQuietly(connection);
            return null;
        }
        if (response == null) {
            record("the connection ended inside a response to GET " + path);
            closeQuietly(connection);
            return null;
        }
        if (response.status() == 200) {
            ok.incrementAndGet();
        } else {
            record("status " + response.status());
        }
        if ("close".equalsIgnoreCase(response.header("connection"))) {
            closeQuietly(connection);
            closedByServer.incrementAndGet();
            return null;
        }
        return connection;
    }

    private static void closeQuietly(RawHttp.Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (IOException e) {
                // already gone
            }
        }
    }

    private void once(int port) {
        try {
            RawHttp.Response response;
            try {
                response = RawHttp.get(port, path);
            } catch (RawHttp.NoResponseException e) {
                if (retry == Retry.NEVER) {
                    throw e;
                }
                retried.incrementAndGet();
                response = RawHttp.get(port, path);
            }
            if (response.status() == 200) {
                ok.incrementAndGet();
                return;
            }
            record("status " + response.status());
        } catch (IOException e) {
            record(e.toString());   // a refused connection among them: never retried
        }
    }

    private void record(String failure) {
        failed.incrementAndGet();
        if (failures.size() < 20) {
            failures.add(failure);
        }
    }

    /** Stops the clients after their current request and waits for them. */
    public void stop() throws InterruptedException {
        running.set(false);
        for (Thread client : clients) {
            client.join(Duration.ofSeconds(60));
        }
    }

    public int ok() {
        return ok.get();
    }

    /** Requests sent a second time because the first connection got no response at all. */
    public int retried() {
        return retried.get();
    }

    /** Keep-alive clients: the answers that said {@code Connection: close}. */
    public int closedByServer() {
        return closedByServer.get();
    }

    public int failed() {
        return failed.get();
    }

    public List<String> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }
}
