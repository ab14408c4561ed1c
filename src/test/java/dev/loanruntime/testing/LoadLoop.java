package dev.loanruntime.testing;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bounded steady load for fault tests: a few platform threads, each sending {@code GET /books} on a new connection
 * per request until {@link #stop()} or a deadline. Counts successes and failures (a refused connection, a second
 * connection without response, a broken response or a status other than 200) and keeps the first failures'
 * messages. A connection reset before any response byte is retried once and counted in {@link #retried()}.
 */
public final class LoadLoop {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger ok = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger retried = new AtomicInteger();
    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    private final List<Thread> clients = new ArrayList<>();

    private LoadLoop() {
    }

    /** Starts {@code clients} threads against 127.0.0.1:{@code port}; they stop by themselves after {@code limit}. */
    public static LoadLoop start(int port, int clients, Duration limit) {
        LoadLoop load = new LoadLoop();
        long deadline = System.nanoTime() + limit.toNanos();
        for (int i = 0; i < clients; i++) {
            load.clients.add(Thread.ofPlatform().daemon().name("load-" + i).start(() -> {
                while (load.running.get() && System.nanoTime() < deadline) {
                    load.once(port);
                }
            }));
        }
        return load;
    }

    private void once(int port) {
        try {
            RawHttp.Response response;
            try {
                response = RawHttp.get(port, "/books");
            } catch (RawHttp.NoResponseException e) {
                // Reset before any response byte: no server answered it, so it is sent again, once, like an
                // HTTP client does with an idempotent request. A refused connection is not retried.
                retried.incrementAndGet();
                response = RawHttp.get(port, "/books");
            }
            if (response.status() == 200) {
                ok.incrementAndGet();
                return;
            }
            record("status " + response.status());
        } catch (IOException e) {
            record(e.toString());
        }
    }

    private void record(String failure) {
        failed.incrementAndGet();
        if (failures.size() < 20) {
            failures.add(failure);
        }
    }

    /** Stops the clients and waits for them. */
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

    public int failed() {
        return failed.get();
    }

    public List<String> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }
}
