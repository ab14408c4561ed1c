package dev.loanruntime.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;

/**
 * Sends JSON bodies, serialized by Jackson to bytes first: the response then carries a {@code Content-Length}
 * instead of being chunked, and the content type names UTF-8 explicitly.
 */
public final class Json {
    /** The content type of every body this service sends. */
    public static final String CONTENT_TYPE = "application/json; charset=utf-8";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** One header instance for every response, so no request parses or validates it again. */
    private static final Header CONTENT_TYPE_HEADER = HeaderValues.createCached(HeaderNames.CONTENT_TYPE, CONTENT_TYPE);

    private Json() {
    }

    /** Sends {@code body} with status 200. */
    public static void send(ServerResponse res, Object body) {
        send(res, Status.OK_200, body);
    }

    /** Sends {@code body} with {@code status}. */
    public static void send(ServerResponse res, Status status, Object body) {
        sendBytes(res, status, bytes(body));
    }

    /** Sends {@code json}, bytes already serialized (by {@link #bytes(Object)}), with {@code status}. */
    public static void sendBytes(ServerResponse res, Status status, byte[] json) {
        res.status(status);
        res.header(CONTENT_TYPE_HEADER);
        res.send(json);
    }

    /** The JSON bytes of {@code body}; the bodies here are records and strings, which always serialize. */
    public static byte[] bytes(Object body) {
        try {
            return MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not serializable as JSON: " + body.getClass().getName(), e);
        }
    }

    /** An error body: {@code {"error": code}}, plus a human-readable message when there is one. */
    public record Error(String error, @JsonInclude(JsonInclude.Include.NON_NULL) String message) {
        public static Error of(String code) {
            return new Error(code, null);
        }
    }
}
