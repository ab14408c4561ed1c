package dev.loanruntime.runtime;

import java.util.concurrent.atomic.AtomicInteger;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

/** Counts the requests being handled right now (including the one that asks). Runs on the request's thread. */
public final class InFlight implements Filter {
    private final AtomicInteger current = new AtomicInteger();

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        current.incrementAndGet();
        try {
            chain.proceed();
        } finally {
            current.decrementAndGet();
        }
    }

    public int current() {
        return current.get();
    }
}
