package dev.loanruntime.stages;

import java.net.SocketOption;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.helidon.common.socket.SocketOptions;

/**
 * The listener's connection options, unchanged, plus the {@code accepted} point. Helidon calls
 * {@link #configureSocket(SocketChannel)} on the listener's platform thread right after {@code accept()} and then
 * creates the connection's virtual thread on that same thread, which inherits the stamp. So under one busy carrier
 * the accept is still on time, and only the new thread waits: that wait is the {@code carrier} stage.
 */
final class StampingSocketOptions implements SocketOptions {
    private final SocketOptions delegate;

    StampingSocketOptions(SocketOptions delegate) {
        this.delegate = delegate;
    }

    @Override
    public void configureSocket(SocketChannel socket) {
        long accepted = System.nanoTime();
        delegate.configureSocket(socket);
        ConnectionStamps.ACCEPTED.set(new ConnectionStamps(accepted));
    }

    @Override
    public Map<SocketOption<?>, Object> socketOptions() {
        return delegate.socketOptions();
    }

    @Override
    public Duration connectTimeout() {
        return delegate.connectTimeout();
    }

    @Override
    public Duration readTimeout() {
        return delegate.readTimeout();
    }

    @Override
    public Optional<Integer> socketReceiveBufferSize() {
        return delegate.socketReceiveBufferSize();
    }

    @Override
    public Optional<Integer> socketSendBufferSize() {
        return delegate.socketSendBufferSize();
    }

    @Override
    public boolean socketReuseAddress() {
        return delegate.socketReuseAddress();
    }

    @Override
    public boolean socketKeepAlive() {
        return delegate.socketKeepAlive();
    }

    @Override
    public boolean tcpNoDelay() {
        return delegate.tcpNoDelay();
    }
}
