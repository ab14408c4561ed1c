package dev.loanruntime.stages;

import io.helidon.common.buffers.BufferData;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.http.Status;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;

/**
 * The {@code line} and {@code headers} points: Helidon calls these on the connection's thread right after it has
 * read (and before it validates) the request line and the header block. Then hands every call to {@code next}.
 *
 * <p>Why it carries the other listener instead of being a second receive listener: Helidon 4.5.0 combines two or
 * more receive listeners into one whose methods do nothing, so beside another listener neither would run. Does
 * not block (unless {@code next} does).
 */
final class HeadStamps implements Http1ConnectionListener {
    private final Http1ConnectionListener next;

    HeadStamps(Http1ConnectionListener next) {
        this.next = next;
    }

    @Override
    public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
        ConnectionStamps stamps = ConnectionStamps.current();
        if (stamps != null) {
            stamps.line = System.nanoTime();
            stamps.headers = Long.MIN_VALUE;
        }
        next.prologue(ctx, prologue);
    }

    @Override
    public void headers(ConnectionContext ctx, Headers headers) {
        ConnectionStamps stamps = ConnectionStamps.current();
        if (stamps != null) {
            stamps.headers = System.nanoTime();
        }
        next.headers(ctx, headers);
    }

    @Override
    public void status(ConnectionContext ctx, Status status) {
        next.status(ctx, status);
    }

    @Override
    public void data(ConnectionContext ctx, BufferData data) {
        next.data(ctx, data);
    }

    @Override
    public void data(ConnectionContext ctx, byte[] bytes, int offset, int length) {
        next.data(ctx, bytes, offset, length);
    }
}
