package dev.loanruntime.stages;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * The points a request's own code takes: {@code admitted} (the server's code first sees the request), then the
 * {@code beforeSend} point (where the {@code Server-Timing} header is added when asked for) and the {@code sent} point
 * (where the request's JFR event is committed and a slow request is logged). While the request runs, its stamps are
 * its connection's current ones ({@link RequestStamps#current()}).
 *
 * <p>Two ways in, the same points: {@link #stamped(Handler)}, a wrapper around each route's handler, for a routing
 * without filters, because Helidon runs a filter pass for every request as soon as one filter exists (about 5% of
 * the cheapest route's throughput on one core); and {@link #filter()}, the first filter of a routing that has filters
 * anyway (the platform model's hand-off to its pool, which must come after {@code admitted} so that its queue shows).
 * A request no route serves (a 404) and the observe endpoints get stamps only through the filter. Both run on the
 * connection's thread; the send listeners run on the thread that sends (the handler's). Nothing here blocks.
 */
public final class RequestPoints {
    private static final System.Logger SLOW = System.getLogger("dev.loanruntime.stages.SlowRequests");
    private final ServerTiming timing;
    /** Requests at least this long (nanoseconds, from their first point to sent) are logged; MAX_VALUE: none. */
    private final long slowNanos;

    RequestPoints(ServerTiming timing, long slowNanos) {
        this.timing = timing;
        this.slowNanos = slowNanos;
    }

    /** {@code handler}, taking the request's points around it. */
    public Handler stamped(Handler handler) {
        return (req, res) -> {
            ConnectionStamps connection = begin(req, res);
            try {
                handler.handle(req, res);
            } finally {
                end(connection);
            }
        };
    }

    /** A routing filter taking the request's points; add it first. */
    public Filter filter() {
        return (chain, req, res) -> {
            ConnectionStamps connection = begin(req, res);
            try {
                chain.proceed();
            } finally {
                end(connection);
            }
        };
    }

    /** Stamps {@code admitted} and registers the send points; null for a connection this package did not accept. */
    private ConnectionStamps begin(ServerRequest req, ServerResponse res) {
        long now = System.nanoTime();
        ConnectionStamps connection = ConnectionStamps.current();
        if (connection == null) {
            return null;
        }
        RequestStamps stamps = connection.request(now);
        if (timing.shows(req.headers())) {
            res.beforeSend(() -> {
                stamps.beforeSend = System.nanoTime();
                res.header(ServerTiming.HEADER, ServerTiming.format(stamps));
            });
        } else {
            res.beforeSend(() -> stamps.beforeSend = System.nanoTime());
        }
        res.whenSent(() -> sent(connection, stamps, req, res));
        connection.current = stamps;
        return connection;
    }

    private static void end(ConnectionStamps connection) {
        if (connection != null) {
            connection.current = null;
        }
    }

    private void sent(ConnectionStamps connection, RequestStamps stamps, ServerRequest req, ServerResponse res) {
        long sent = System.nanoTime();
        stamps.sent = sent;
        connection.lastSent = sent;
        StageEvents.request(stamps, req, res);
        if (sent - stamps.origin() >= slowNanos) {
            SLOW.log(System.Logger.Level.INFO, () -> "slow request: " + req.prologue().method().text() + " "
                    + req.path().path() + " " + res.status().code() + " " + ServerTiming.format(stamps));
        }
    }
}
