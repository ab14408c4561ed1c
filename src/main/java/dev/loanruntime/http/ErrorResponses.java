package dev.loanruntime.http;

import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;

import io.helidon.common.buffers.DataReader;
import io.helidon.http.BadRequestException;
import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.http.NotFoundException;
import io.helidon.http.Status;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http.ErrorHandler;
import io.helidon.webserver.http.HttpRouting;

import dev.loanruntime.crypto.BusyException;
import dev.loanruntime.crypto.DerivationException;
import dev.loanruntime.overload.OverloadedException;
import dev.loanruntime.store.StoreUnavailableException;

/**
 * Every error a client can get, as a JSON body: route errors through the routing's error handlers, and the errors
 * Helidon answers itself before routing (malformed requests, oversized headers or bodies) through direct handlers.
 * No body ever carries an exception's class or stack trace.
 */
public final class ErrorResponses {
    private static final System.Logger LOGGER = System.getLogger(ErrorResponses.class.getName());
    /** Seconds a refused heavy request is asked to wait: about one derivation. */
    static final String RETRY_AFTER_SECONDS = "1";
    private static final String HEADERS_TOO_LARGE = "Header size exceeded";
    private static final String OVERLOADED = "overloaded";
    /** Not among Helidon 4.5's constants. */
    private static final Status HEADER_FIELDS_TOO_LARGE_431 = Status.create(431, "Request Header Fields Too Large");
    private static final Pattern UNSAFE = Pattern.compile("Exception|Error|java\\.|io\\.helidon|\\bat [a-z]|\\$|\\n");

    private ErrorResponses() {
    }

    /** Registers the route-level error handlers; their answers to HEAD requests have no body. */
    public static void register(HttpRouting.Builder routing) {
        on(routing, NotFoundException.class, (req, res, e) ->
                Json.send(res, Status.NOT_FOUND_404, Json.Error.of("route_not_found")));
        on(routing, BusyException.class, (req, res, e) -> {
            res.header(HeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
            Json.send(res, Status.SERVICE_UNAVAILABLE_503, new Json.Error("busy", e.reason()));
        });
        on(routing, OverloadedException.class, (req, res, e) -> {
            res.header(HeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
            Json.send(res, Status.SERVICE_UNAVAILABLE_503, new Json.Error(OVERLOADED, e.getMessage()));
        });
        on(routing, StoreUnavailableException.class, (req, res, e) -> {
            // Not an error of this process: one line at DEBUG, the health check reports the store down.
            LOGGER.log(System.Logger.Level.DEBUG, e::getMessage);
            res.header(HeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
            Json.send(res, Status.SERVICE_UNAVAILABLE_503, Json.Error.of("store_unavailable"));
        });
        on(routing, BadRequestException.class, (req, res, e) ->
                // e.g. an unparsable Content-Type; Helidon's message names the header, not a Java type
                Json.send(res, Status.BAD_REQUEST_400, new Json.Error("bad_request", safe(e.getMessage()))));
        on(routing, DataReader.InsufficientDataAvailableException.class, (req, res, e) -> {
            // the client hung up in the middle of its body: nothing went wrong here, and nobody reads this
            LOGGER.log(System.Logger.Level.DEBUG, () -> "body ended early on " + req.path().path());
            Json.send(res, Status.BAD_REQUEST_400, new Json.Error("incomplete_body",
                    "the connection ended before the body did"));
        });
        on(routing, DerivationException.class, (req, res, e) -> {
            LOGGER.log(System.Logger.Level.ERROR, "derivation failed", e);
            Json.send(res, Status.INTERNAL_SERVER_ERROR_500, Json.Error.of("derivation"));
        });
        on(routing, Exception.class, (req, res, e) -> {
            LOGGER.log(System.Logger.Level.ERROR, "unhandled error on " + req.path().path(), e);
            Json.send(res, Status.INTERNAL_SERVER_ERROR_500, Json.Error.of("internal"));
        });
    }

    /** {@code handler} for the errors of {@code type}, given a response without a body when the request is HEAD. */
    private static <T extends Throwable> void on(HttpRouting.Builder routing, Class<T> type, ErrorHandler<T> handler) {
        routing.error(type, (req, res, e) -> handler.handle(req, HeadResponse.of(req, res), e));
    }

    /**
     * Direct handlers: Helidon's own early answers (400, 413, 431, 505, ...) with a JSON body; the refusals of the
     * listener's concurrency limit as 503 {@code overloaded} with Retry-After, each counted in {@code refusedByLimit}.
     */
    public static DirectHandlers directHandlers(LongAdder refusedByLimit) {
        DirectHandlers.Builder builder = DirectHandlers.builder();
        for (DirectHandler.EventType type : DirectHandler.EventType.values()) {
            builder.addHandler(type, (request, t, status, headers, message) ->
                    direct(request, status, headers, message, refusedByLimit));
        }
        return builder.build();
    }

    private static DirectHandler.TransportResponse direct(DirectHandler.TransportRequest request,
                                                          Status status,
                                                          io.helidon.http.ServerResponseHeaders headers,
                                                          String message,
                                                          LongAdder refusedByLimit) {
        // Helidon 4.5 reports headers over max-headers-size as a plain 400; RFC 6585 has the precise status
        Status answered = status == Status.BAD_REQUEST_400 && HEADERS_TOO_LARGE.equals(message)
                ? HEADER_FIELDS_TOO_LARGE_431
                : status;
        String code = answered.reasonPhrase().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
        // Helidon 4.5's one early 503: its listener's concurrency limit ("Too Many Concurrent Requests")
        if (status == Status.SERVICE_UNAVAILABLE_503) {
            refusedByLimit.increment();
            code = OVERLOADED;
            message = "the server's concurrency limit is reached";
            headers.set(HeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
        }
        headers.set(HeaderNames.CONTENT_TYPE, Json.CONTENT_TYPE);
        DirectHandler.TransportResponse.Builder response = DirectHandler.TransportResponse.builder()
                .status(answered)
                .headers(headers);
        // No body in an answer to HEAD; Helidon then sends Content-Length: 0, which it sets on every direct answer.
        if (!Method.HEAD.text().equals(request.method())) {
            response.entity(Json.bytes(new Json.Error(code, safe(message))));
        }
        return response.build();
    }

    /**
     * Helidon's message (server.error-handling.include-entity) when it says what is wrong in plain words ("Header
     * size exceeded"); none when it names a Java type, points to a log the client cannot see, or is long, so that
     * no client ever sees an exception class.
     */
    static String safe(String message) {
        if (message == null || message.isBlank() || message.length() > 200
                || UNSAFE.matcher(message).find() || message.contains("server log")) {
            return null;
        }
        return message;
    }
}
