package dev.loanruntime.serve;

import java.nio.file.Path;

import io.helidon.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.Locks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

/**
 * A spare's warm-up sends what the routes allow, and nothing that changes the store it shares with the workers: its
 * requests come from the same route list that {@code GET /} answers, so a new route is warmed up (or, marked, left
 * out) without a second list to keep.
 */
@ResourceLock(Locks.GLOBAL_METER_REGISTRY)
class WarmUpIT {
    @TempDir
    Path dir;

    @Test
    void warmUpSendsEveryCheapReadOnlyRouteAndCountsNoLoanInTheSharedStore() {
        ServeOptions options = ServeOptions.parse("--port", "0", "--store", "sqlite:" + dir.resolve("loans.db"),
                "--crypto-threads", "1");
        try (LoanServer server = LoanServer.start(options, Config.create());
             Http http = new Http("http://127.0.0.1:" + server.port())) {
            assertThat(server.warmUpTargets(), containsInAnyOrder("/books", "/status", "/member/session",
                    "/catalog/lookup?ms=0", "/runtime", "/observe/metrics", "/observe/health", "/"));
            for (String target : server.warmUpTargets()) {
                assertThat(target, http.get(target).status(), lessThan(500));
            }
        }

        WarmUp.run(options, Config.create(), 3);

        try (LoanServer server = LoanServer.start(options, Config.create());
             Http http = new Http("http://127.0.0.1:" + server.port())) {
            assertThat("loans counted by the warm-up", http.get("/status").json().get("loanCounter").asInt(), is(0));
        }
    }
}
