package dev.loanruntime.runtime;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

/**
 * Counts the requests being handled right now (including the one that asks), and all requests handled so far.
 * Runs on the request's thread.
 */
public final class InFlight implements Filter {
    private final AtomicInteger current = new AtomicInteger();
    private final LongAdder handled = new LongAdder();

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        current.incrementAndGet();
        handled.increment();
        try {
            chain.proceed();
        } finally {
            current.decrementAndGet();
        }
    }

    /** Requests that reached the routing since the server started. */
    public long handled() {
        return handled.sum();
    }

    public int current() {
        return current.get();
    }
}
