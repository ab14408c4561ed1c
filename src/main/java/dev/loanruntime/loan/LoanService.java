package dev.loanruntime.loan;

import io.helidon.http.Method;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import dev.loanruntime.http.Json;
import dev.loanruntime.http.Routes;
import dev.loanruntime.store.LoanStore;

/**
 * {@code GET /loan} counts a loan ({@code HEAD /loan} does not); {@code GET /status} reads the count. Both name the
 * answering process.
 */
public final class LoanService implements HttpService {
    private static final long PID = ProcessHandle.current().pid();
    private final LoanStore store;

    public LoanService(LoanStore store) {
        this.store = store;
    }

    @Override
    public void routing(HttpRules rules) {
        // Never in a warm-up: a spare would count loans in the store it shares with the workers.
        Routes.get(rules, "/loan", "adds one to the loan counter and answers it, with this process's pid",
                Routes.NO_WARM_UP, this::loanHandler);
        Routes.get(rules, "/status", "the loan counter, without adding, with this process's pid", this::statusHandler);
    }

    private void loanHandler(ServerRequest req, ServerResponse res) {
        // HEAD is safe (RFC 9110, 9.2.1): it shows what a loan's answer looks like and takes none
        boolean head = req.prologue().method() == Method.HEAD;
        Json.send(res, new LoanCount(PID, head ? store.loans() : store.incrementLoans()));
    }

    private void statusHandler(ServerRequest req, ServerResponse res) {
        Json.send(res, new LoanCount(PID, store.loans()));
    }

    record LoanCount(long pid, long loanCounter) {
    }
}
