package dev.loanruntime.client;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * A real HTTP server in the test's JVM whose answers the client tests know in advance: a fixed delay, a chosen
 * status, and a stall that holds every request for a while, once. Port 0; close it after the test.
 */
final class TestServer implements AutoCloseable {
    private final WebServer server;
    private final ReentrantLock everyone = new ReentrantLock(true);
    private final AtomicInteger serialized = new AtomicInteger();
    private final AtomicInteger sleeps = new AtomicInteger();
    private final int stallAt;
    private final int stallMs;

    /** @param stallAt the n-th request to {@code /serialized} holds all of them for {@code stallMs} ms */
    TestServer(int stallAt, int stallMs) {
        this.stallAt = stallAt;
        this.stallMs = stallMs;
        this.server = WebServer.builder()
                .port(0)
                .host("127.0.0.1")
                .routing(r -> r.get("/fast", (req, res) -> res.send("ok"))
                        .get("/sleep", this::sleepHandler)
                        .get("/status", (req, res) -> res.status(Status.create(intParam(req, "code"))).send("status"))
                        .get("/serialized", this::serializedHandler))
                .build()
                .start();
    }

    TestServer() {
        this(Integer.MAX_VALUE, 0);
    }

    Target target() {
        return Target.parse("http://127.0.0.1:" + server.port());
    }

    /** The requests to {@code /sleep} that have arrived so far. */
    int sleeps() {
        return sleeps.get();
    }

    private void sleepHandler(ServerRequest req, ServerResponse res) {
        sleeps.incrementAndGet();
        try {
            Thread.sleep(intParam(req, "ms"));
            res.send("slept");
        } catch (InterruptedException e) {
            // the server is stopping and the client gave up already (the timeout test): nothing to answer
            Thread.currentThread().interrupt();
        }
    }

    // Every request takes the same lock, like handlers sharing one event loop; one of them keeps it for stallMs.
    private void serializedHandler(ServerRequest req, ServerResponse res) throws InterruptedException {
        everyone.lock();
        try {
            if (serialized.incrementAndGet() == stallAt) {
                Thread.sleep(stallMs);
            }
        } finally {
            everyone.unlock();
        }
        res.send("ok");
    }

    private static int intParam(ServerRequest req, String name) {
        return Integer.parseInt(req.query().get(name));
    }

    @Override
    public void close() {
        server.stop();
    }
}
