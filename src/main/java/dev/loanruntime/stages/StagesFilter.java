package dev.loanruntime.stages;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

/**
 * The first routing filter: stamps {@code filter}, makes the request's stamps the thread's current ones, and
 * registers the {@code beforeSend} point (where the {@code Server-Timing} header is added when asked for) and the
 * {@code sent} point (where the request's JFR event is committed and a slow request is logged). Runs on the
 * connection's thread; the send listeners run on the thread that sends (the handler's). Does not block.
 */
final class StagesFilter implements Filter {
    private static final System.Logger SLOW = System.getLogger("dev.loanruntime.stages.SlowRequests");
    private final ServerTiming timing;
    /** Requests at least this long (nanoseconds, from their first point to sent) are logged; MAX_VALUE: none. */
    private final long slowNanos;

    StagesFilter(ServerTiming timing, long slowNanos) {
        this.timing = timing;
        this.slowNanos = slowNanos;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        long now = System.nanoTime();
        ConnectionStamps connection = ConnectionStamps.current();
        if (connection == null) {   // a connection not accepted through this package's hooks
            chain.proceed();
            return;
        }
        RequestStamps stamps = connection.request(now);
        boolean show = timing.shows(req.headers());
        res.beforeSend(() -> {
            stamps.beforeSend = System.nanoTime();
            if (show) {
                res.header(ServerTiming.HEADER, ServerTiming.format(stamps));
            }
        });
        res.whenSent(() -> {
            long sent = System.nanoTime();
            stamps.sent = sent;
            connection.lastSent = sent;
            StageEvents.request(stamps, req.path().path(), res.status().code());
            if (sent - stamps.origin() >= slowNanos) {
                SLOW.log(System.Logger.Level.INFO, () -> "slow request: " + req.prologue().method().text() + " "
                        + req.path().path() + " " + res.status().code() + " " + ServerTiming.format(stamps));
            }
        });
        RequestStamps.enter(stamps);
        try {
            chain.proceed();
        } finally {
            RequestStamps.leave();
        }
    }
}
