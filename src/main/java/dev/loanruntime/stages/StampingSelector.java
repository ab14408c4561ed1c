package dev.loanruntime.stages;

import java.util.Set;

import io.helidon.common.buffers.BufferData;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.spi.ServerConnection;
import io.helidon.webserver.spi.ServerConnectionSelector;

/**
 * The listener's connection selector, plus the {@code first ran} point. It must stay the listener's only selector:
 * with one candidate Helidon calls {@link #connection} as soon as the connection's thread runs, before reading a
 * byte; with two it would first sniff the opening bytes, and a malformed request would be closed without its JSON
 * error. Runs on the connection's virtual thread.
 */
final class StampingSelector implements ServerConnectionSelector {
    private final ServerConnectionSelector delegate;

    StampingSelector(ServerConnectionSelector delegate) {
        this.delegate = delegate;
    }

    @Override
    public int bytesToIdentifyConnection() {
        return delegate.bytesToIdentifyConnection();
    }

    @Override
    public Support supports(BufferData data) {
        return delegate.supports(data);
    }

    @Override
    public Set<String> supportedApplicationProtocols() {
        return delegate.supportedApplicationProtocols();
    }

    @Override
    public ServerConnection connection(ConnectionContext ctx) {
        ConnectionStamps stamps = ConnectionStamps.firstRun();
        ServerConnection connection = delegate.connection(ctx);
        return stamps == null ? connection : new StampedConnection(connection, stamps);
    }
}
