package dev.loanruntime.runtime;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.HttpService;

/**
 * Counts the requests being handled right now (including the one that asks), and all requests handled so far.
 *
 * <p>Two ways in, the same counts: {@link #filter()} for a routing that has a filter anyway (the platform model's
 * hand-off to its pool, where a request counts from the moment it is queued), and {@link #count(HttpService)}, a
 * wrapper around each route's handler, for a routing without filters. Why two: Helidon runs a filter pass for every
 * request as soon as one filter exists, and on one core that pass alone took about 4.5% of {@code /books}' throughput.
 * A request for a path no route serves is counted by the filter only. Both run on the request's thread and do not
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

    /** {@code service} with each of its routes' handlers counting the requests it handles. */
    public HttpService count(HttpService service) {
        return new CountedService(service, this);
    }

    void enter() {
        current.incrementAndGet();
        handled.increment();
    }

    void leave() {
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
