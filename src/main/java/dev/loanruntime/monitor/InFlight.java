package dev.loanruntime.monitor;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * Counts the requests being handled right now (including the one that asks), and all requests handled so far.
 *
 * <p>Two ways in, the same counts: {@link #filter()} for a routing that has a filter anyway (the platform model's
 * hand-off to its pool, where a request counts from the moment it is queued), and {@link #counted(Handler)}, a
 * wrapper around a route's handler (see {@code WrappedService}, in http/), for a routing without filters. A
 * request for a path no route serves is counted by the filter only. Both run on the request's thread and do not
 * block.
 */
public final class InFlight {
    private static final Header CONNECTION_CLOSE = HeaderValues.createCached(HeaderNames.CONNECTION, "close");
    private static final String HTTP_2 = "2.0";
    private final AtomicInteger current = new AtomicInteger();
    private final LongAdder handled = new LongAdder();
    /** From {@link #closeConnections()} on, every answer asks its client to close the connection after it. */
    private volatile boolean closing;

    /** A routing filter that counts every request passing through it. */
    public Filter filter() {
        return (chain, req, res) -> {
            enter(req, res);
            try {
                chain.proceed();
            } finally {
                leave();
            }
        };
    }

    /** {@code handler}, counting the requests it handles. */
    public Handler counted(Handler handler) {
        return (req, res) -> {
            enter(req, res);
            try {
                handler.handle(req, res);
            } finally {
                leave();
            }
        };
    }

    private void leave() {
        current.decrementAndGet();
    }

    /** Requests handled since the server started. */
    public long handled() {
        return handled.sum();
    }

    /**
     * Counts a request in; from {@link #closeConnections()} on, an HTTP/1.1 answer asks the client to close after it.
     * HTTP/2 forbids the header (Helidon resets the stream that carries it): its connections end with the server's
     * GOAWAY at the stop.
     */
    private void enter(ServerRequest req, ServerResponse res) {
        current.incrementAndGet();
        handled.increment();
        if (closing && !HTTP_2.equals(req.prologue().protocolVersion())) {
            res.header(CONNECTION_CLOSE);
        }
    }

    public int current() {
        return current.get();
    }

    /**
     * From now on each answer carries {@code Connection: close}: a keep-alive client sends its next request on a new
     * connection, which reaches a server that is not stopping. Any thread; returns at once.
     */
    public void closeConnections() {
        closing = true;
    }

    /**
     * Waits until no request has been in flight for {@code quiet} (a connection accepted a moment ago has had time to
     * send its request and be counted), or until {@code atMost} has passed. Returns whether it was quiet.
     */
    public boolean awaitQuiet(Duration quiet, Duration atMost) throws InterruptedException {
        long end = System.nanoTime() + atMost.toNanos();
        long quietSince = current.get() == 0 ? System.nanoTime() : Long.MAX_VALUE;
        while (System.nanoTime() < end) {
            if (current.get() > 0) {
                quietSince = Long.MAX_VALUE;
            } else if (quietSince == Long.MAX_VALUE) {
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince >= quiet.toNanos()) {
                return true;
            }
            Thread.sleep(5);
        }
        return false;
    }
}
