package dev.loanruntime.loan;

import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import dev.loanruntime.http.Json;
import dev.loanruntime.http.Routes;

/**
 * {@code GET /catalog/lookup?ms=N}: a stand-in for a call to a remote catalog or a database. The thread waits
 * without using the CPU: a virtual thread parks and frees its carrier, a platform thread is held for the wait.
 */
public final class CatalogService implements HttpService {
    static final int MAX_WAIT_MS = 10_000;

    @Override
    public void routing(HttpRules rules) {
        rules.get("/catalog/lookup", this::lookupHandler);
        Routes.allowOnly(rules, "/catalog/lookup", Method.GET);
    }

    private void lookupHandler(ServerRequest req, ServerResponse res) throws InterruptedException {
        var raw = req.query().first("ms");
        if (raw.isEmpty()) {
            badMs(res, "query parameter 'ms' is required: an integer from 0 to " + MAX_WAIT_MS);
            return;
        }
        int ms;
        try {
            ms = Integer.parseInt(raw.get());
        } catch (NumberFormatException e) {
            badMs(res, "query parameter 'ms' must be an integer from 0 to " + MAX_WAIT_MS);
            return;
        }
        if (ms < 0 || ms > MAX_WAIT_MS) {
            badMs(res, "query parameter 'ms' must be from 0 to " + MAX_WAIT_MS + ", was " + ms);
            return;
        }
        Thread.sleep(ms);
        Json.send(res, new Waited(ms));
    }

    private static void badMs(ServerResponse res, String message) {
        Json.send(res, Status.BAD_REQUEST_400, new Json.Error("bad_query", message));
    }

    record Waited(int waitedMs) {
    }
}
