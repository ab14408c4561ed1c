package dev.loanruntime.runtime;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.helidon.common.context.Contexts;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

import dev.loanruntime.stages.RequestStamps;

/**
 * The platform thread model: a routing filter that runs the rest of the request (every route handler) on a fixed
 * pool of platform threads while Helidon's connection thread waits for it. This is the classic thread-per-request
 * server: the OS time-slices the pool's threads, so heavy inline work does not starve light requests, but a pool
 * of N threads serves at most N requests at once; the rest queue (unbounded, as in a servlet container).
 */
public final class PlatformHandlers implements Filter, AutoCloseable {
    private final ExecutorService pool;
    private final int size;

    public PlatformHandlers(int size) {
        this.size = size;
        // Context-aware, so Helidon's request context is visible on the handler thread as it would be inline.
        this.pool = Contexts.wrap(Executors.newFixedThreadPool(size,
                Thread.ofPlatform().daemon().name("handler-", 1).factory()));
    }

    /** Runs on Helidon's connection thread (virtual); parks it until the handler thread is done. */
    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        RequestStamps stamps = RequestStamps.current();
        Future<?> done = pool.submit(() -> {
            stamps.handlerStarted();    // the stage 'queue' ends: a pool thread is free for this request
            RequestStamps.enter(stamps);
            try {
                chain.proceed();
            } finally {
                RequestStamps.leave();
            }
        });
        try {
            done.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            done.cancel(true);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a handler thread", e);
        }
    }

    public int size() {
        return size;
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
