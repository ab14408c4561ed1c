package dev.loanruntime.loan;

import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import dev.loanruntime.http.Json;
import dev.loanruntime.http.Routes;
import dev.loanruntime.store.LoanStore;
import dev.loanruntime.store.Pool;

/**
 * {@code GET /catalog/lookup?ms=N[&inside=none|monitor|lock|native|db]}: a stand-in for a call to a remote catalog or a
 * database. The thread waits without using the CPU: a virtual thread parks and frees its carrier, a platform thread
 * is held for the wait. {@code inside} chooses where it waits ({@link Inside}); a virtual thread that waits inside a
 * native frame, or inside a monitor before JDK 24, keeps its carrier for the whole wait (it is pinned).
 */
public final class CatalogService implements HttpService {
    static final int MAX_WAIT_MS = 10_000;
    private final LoanStore store;

    /** {@code store}: whose connection pool {@code inside=db} waits on. */
    public CatalogService(LoanStore store) {
        this.store = store;
    }

    @Override
    public void routing(HttpRules rules) {
        Routes.get(rules, "/catalog/lookup", "waits ms=N milliseconds (0 to " + MAX_WAIT_MS + "), a stand-in for a "
                + "remote call; inside=none|monitor|lock|native|db chooses where", Optional.of("/catalog/lookup?ms=0"),
                this::lookupHandler);
    }

    private void lookupHandler(ServerRequest req, ServerResponse res) throws InterruptedException {
        var raw = req.query().first("ms");
        if (raw.isEmpty()) {
            badQuery(res, "query parameter 'ms' is required: an integer from 0 to " + MAX_WAIT_MS);
            return;
        }
        int ms;
        try {
            ms = Integer.parseInt(raw.get());
        } catch (NumberFormatException e) {
            badQuery(res, "query parameter 'ms' must be an integer from 0 to " + MAX_WAIT_MS);
            return;
        }
        if (ms < 0 || ms > MAX_WAIT_MS) {
            badQuery(res, "query parameter 'ms' must be from 0 to " + MAX_WAIT_MS + ", was " + ms);
            return;
        }
        Inside inside;
        try {
            inside = Inside.parse(req.query().first("inside").orElse(Inside.NONE.label()));
        } catch (IllegalArgumentException e) {
            badQuery(res, e.getMessage());
            return;
        }
        if (inside == Inside.NATIVE && NativeWait.unavailable().isPresent()) {
            Json.send(res, Status.NOT_IMPLEMENTED_501,
                    new Json.Error("native_wait_unavailable", NativeWait.unavailable().get()));
            return;
        }
        Pool pool = null;
        if (inside.needsPool()) {
            Optional<Pool> storePool = store.pool();
            if (storePool.isEmpty()) {
                badQuery(res, "inside=db waits in the database: it needs a PostgreSQL store (--store "
                        + "postgresql://HOST:PORT/DB), this server's is " + store.describe());
                return;
            }
            pool = storePool.get();
        }
        inside.await(ms, pool);
        // inside=none answers as the route always did, byte for byte (the benchmark's peers send the same body)
        Json.send(res, new Waited(ms, inside == Inside.NONE ? null : inside.label()));
    }

    private static void badQuery(ServerResponse res, String message) {
        Json.send(res, Status.BAD_REQUEST_400, new Json.Error("bad_query", message));
    }

    record Waited(int waitedMs, @JsonInclude(JsonInclude.Include.NON_NULL) String inside) {
    }
}
