package dev.loanruntime.overload;

import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

import io.helidon.common.concurrency.limits.Limit;
import io.helidon.common.concurrency.limits.LimitAlgorithm;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.Handler;

/**
 * The listener's concurrency limit ({@code --limit}) on HTTP/2 streams, answered as on HTTP/1.1. Helidon 4.5.0
 * refuses a stream past the limit with a plain-text 503 of its own, outside the server's error handling (no JSON
 * {@code overloaded}, no Retry-After, not counted in {@code refusedByLimit}), and tells the limit that every answer
 * of 400 or more was a drop, which HTTP/1.1 does not. This limit, which an HTTP/2 connection gets in place of the
 * listener's, asks the listener's, hands Helidon an acceptance whatever it answered, and marks a refusal on the
 * stream's own virtual thread; the request then meets {@link #refusing} first, which answers 503 {@code overloaded}
 * through the routing's error handler. Every permit taken is a success when the request ends, as on HTTP/1.1.
 */
public final class StreamLimit implements Limit {
    /** Set by a refusal, on the thread that routes the refused stream next; read once. */
    private static final ThreadLocal<Boolean> REFUSED = new ThreadLocal<>();
    private static final LimitAlgorithm.Token NO_PERMIT = new Permit(null);

    private final Limit limit;

    public StreamLimit(Limit limit) {
        this.limit = limit;
    }

    /** {@code handler}, answering 503 {@code overloaded} instead when the limit refused its stream. */
    public static Handler refusing(Handler handler, LongAdder refused) {
        return (req, res) -> {
            refuseIfMarked(refused);
            handler.handle(req, res);
        };
    }

    /** The same as a routing filter, for a routing that has filters anyway. */
    public static Filter refusing(LongAdder refused) {
        return (chain, req, res) -> {
            refuseIfMarked(refused);
            chain.proceed();
        };
    }

    private static void refuseIfMarked(LongAdder refused) {
        if (REFUSED.get() != null) {
            REFUSED.remove();
            refused.increment();
            throw new OverloadedException("the server's concurrency limit is reached");
        }
    }

    @Override
    public Outcome tryAcquireOutcome(boolean wait) {
        Outcome outcome = limit.tryAcquireOutcome(wait);
        LimitAlgorithm.Token permit;
        if (outcome instanceof Outcome.Accepted accepted) {
            permit = new Permit(accepted.token());
        } else {
            REFUSED.set(Boolean.TRUE);
            permit = NO_PERMIT;
        }
        return outcome instanceof Outcome.Deferred deferred
                ? Outcome.deferredAcceptance(outcome.originName(), outcome.algorithmType(), permit,
                        deferred.waitStartNanoTime(), deferred.waitEndNanoTime())
                : Outcome.immediateAcceptance(outcome.originName(), outcome.algorithmType(), permit);
    }

    @Override
    public Outcome tryAcquireOutcome() {
        return tryAcquireOutcome(true);
    }

    @SuppressWarnings("removal")
    @Override
    public Optional<Token> tryAcquire() {
        return tryAcquire(true);
    }

    @SuppressWarnings("removal")
    @Override
    public Optional<Token> tryAcquire(boolean wait) {
        return tryAcquireOutcome(wait) instanceof Outcome.Accepted accepted
                ? Optional.of(accepted.token()) : Optional.empty();
    }

    @Override
    public Limit copy() {
        return new StreamLimit(limit.copy());
    }

    @Override
    public String name() {
        return limit.name();
    }

    @Override
    public String type() {
        return limit.type();
    }

    /** A permit of the listener's limit (none for a refused stream), a success however the request ended. */
    private record Permit(LimitAlgorithm.Token token) implements LimitAlgorithm.Token {
        @Override
        public void dropped() {
            success();
        }

        @Override
        public void ignore() {
            success();
        }

        @Override
        public void success() {
            if (token != null) {
                token.success();
            }
        }
    }
}
