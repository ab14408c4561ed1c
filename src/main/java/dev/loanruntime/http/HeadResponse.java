package dev.loanruntime.http;

import java.io.OutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

import io.helidon.common.uri.UriQuery;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.HttpMediaType;
import io.helidon.http.Method;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.ServerResponseTrailers;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * The response to a {@code HEAD} request: the status and headers that the same {@code GET} would get, and no body
 * (RFC 9110, 9.3.2). Helidon 4.5 neither routes {@code HEAD} to {@code GET} routes nor leaves out the body of a
 * response to {@code HEAD}, so a handler (or error handler) that answers both sends through this: what it sends sets
 * {@code Content-Length} to the body's size and the body stays here. Bodies are bytes or strings, as everywhere in
 * this service (no content encoding is on the class path, so the size is the size GET sends). Used on the request's
 * thread, like the response it wraps.
 */
final class HeadResponse implements ServerResponse {
    private static final byte[] NONE = new byte[0];
    private final ServerResponse response;

    private HeadResponse(ServerResponse response) {
        this.response = response;
    }

    /** {@code res} without its body when {@code req} is a {@code HEAD} request; else {@code res} itself. */
    static ServerResponse of(ServerRequest req, ServerResponse res) {
        return req.prologue().method() == Method.HEAD ? new HeadResponse(res) : res;
    }

    @Override
    public void send(byte[] bytes, int position, int length) {
        if (!response.headers().contains(HeaderNames.CONTENT_LENGTH)) {
            response.headers().contentLength(length);
        }
        response.send(NONE);
    }

    @Override
    public void send(byte[] bytes) {
        send(bytes, 0, bytes.length);
    }

    @Override
    public void send(Object entity) {
        byte[] bytes = switch (entity) {
            case byte[] b -> b;
            case String text -> text.getBytes(response.headers().contentType()
                    .flatMap(HttpMediaType::charset).map(Charset::forName).orElse(StandardCharsets.UTF_8));
            default -> throw new UnsupportedOperationException("no size known for the body of a response to HEAD: "
                    + entity.getClass().getName());
        };
        send(bytes);
    }

    @Override
    public void send() {
        response.send();
    }

    /** Not for a response to HEAD: the size of a streamed body is not known before it is sent. */
    @Override
    public OutputStream outputStream() {
        throw new UnsupportedOperationException("no streamed body in a response to HEAD");
    }

    @Override
    public ServerResponse status(Status status) {
        response.status(status);
        return this;
    }

    @Override
    public Status status() {
        return response.status();
    }

    @Override
    public ServerResponse header(Header header) {
        response.header(header);
        return this;
    }

    @Override
    public boolean isSent() {
        return response.isSent();
    }

    @Override
    public long bytesWritten() {
        return response.bytesWritten();
    }

    @Override
    public ServerResponse beforeSend(Runnable listener) {
        response.beforeSend(listener);
        return this;
    }

    @Override
    public ServerResponse whenSent(Runnable listener) {
        response.whenSent(listener);
        return this;
    }

    @Override
    public ServerResponse reroute(String newPath) {
        response.reroute(newPath);
        return this;
    }

    @Override
    public ServerResponse reroute(String path, UriQuery query) {
        response.reroute(path, query);
        return this;
    }

    @Override
    public ServerResponse next() {
        response.next();
        return this;
    }

    @Override
    public ServerResponseHeaders headers() {
        return response.headers();
    }

    @Override
    public ServerResponseTrailers trailers() {
        return response.trailers();
    }

    @Override
    public void streamResult(String result) {
        response.streamResult(result);
    }

    @Override
    public void streamFilter(UnaryOperator<OutputStream> filterFunction) {
        response.streamFilter(filterFunction);
    }
}
