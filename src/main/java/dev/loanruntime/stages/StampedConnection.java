package dev.loanruntime.stages;

import java.time.Duration;

import io.helidon.common.concurrency.limits.Limit;
import io.helidon.common.task.InterruptableTask;
import io.helidon.webserver.spi.ServerConnection;

/**
 * An HTTP/1.1 connection, plus the {@code closed} point and one JFR event when it ends. Also an
 * {@link InterruptableTask} delegating {@link #canInterrupt()}: graceful shutdown asks the connection whether it
 * is between requests, and without the answer it would wait for idle connections until its grace period ends.
 * {@link #handle} runs on the connection's virtual thread for the connection's whole life.
 */
final class StampedConnection implements ServerConnection, InterruptableTask<Void> {
    private final ServerConnection delegate;
    private final ConnectionStamps stamps;

    StampedConnection(ServerConnection delegate, ConnectionStamps stamps) {
        this.delegate = delegate;
        this.stamps = stamps;
    }

    @Override
    public void handle(Limit limit) throws InterruptedException {
        try {
            delegate.handle(limit);
        } finally {
            long closed = System.nanoTime();
            ConnectionStamps.forget();
            StageEvents.connection(stamps, closed);
        }
    }

    @Override
    public boolean canInterrupt() {
        return delegate instanceof InterruptableTask<?> task && task.canInterrupt();
    }

    @Override
    public Duration idleTime() {
        return delegate.idleTime();
    }

    @Override
    public void close(boolean interrupt) {
        delegate.close(interrupt);
    }
}
