package dev.loanruntime.monitor;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.Handler;

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
    private final AtomicInteger current = new AtomicInteger();
    private final LongAdder handled = new LongAdder();

    /** A routing filter that counts every request passing through it. */
    public Filter filter() {
        return (chain, req, res) -> {
            enter();
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
            enter();
            try {
                handler.handle(req, res);
            } finally {
                leave();
            }
        };
    }

    private void enter() {
        current.incrementAndGet();
        handled.increment();
    }

    private void leave() {
        current.decrementAndGet();
    }

    /** Requests handled since the server started. */
    public long handled() {
        return handled.sum();
    }

    public int current() {
        return current.get();
    }
}
