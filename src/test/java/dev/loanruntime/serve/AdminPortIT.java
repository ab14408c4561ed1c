package dev.loanruntime.serve;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;

/**
 * The admin port answers when the service's port cannot: while blocking derivations hold the one carrier (the
 * service's own /runtime waits behind them) and while the listener's limit refuses every request.
 */
@Timeout(180)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class AdminPortIT {
    private static final long SPIN_MS = 1500;

    @Test
    void onOneHeldCarrierTheAdminPortAnswersAtOnceAndSeesTheStall() throws Exception {
        // the clients close last: the server's end, not the derivations still queued on its one carrier, ends them
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
                ServerProcess server = spinning(1, "--limit", "none");
                Http http = new Http(server.baseUri());
                Http admin = new Http(server.adminUri())) {
            // a first answer loads classes on both sides: a scraper that polls has had it long before a stall
            assertThat(admin.get("/runtime").status(), is(200));
            assertThat(admin.get("/observe/metrics").status(), is(200));
            AtomicBoolean done = new AtomicBoolean();
            for (int i = 0; i < 3; i++) {
                clients.submit(() -> {
                    while (!done.get()) {
                        http.get("/member/verify-blocking");
                    }
                });
            }
            await("a derivation spinning").atMost(Duration.ofSeconds(20))
                    .until(() -> server.output().contains(SpinningHasherServer.SPINNING));
            double lateNowMs = 0;
            for (int i = 0; i < 20 && lateNowMs < 500; i++) {
                Http.Response runtime = admin.get("/runtime");
                assertThat(runtime.body(), runtime.status(), is(200));
                assertThat("ms for /runtime on the admin port while the carrier is held", runtime.took().toMillis(),
                        lessThan(100L));
                lateNowMs = Math.max(lateNowMs, runtime.json().path("carrierDelay").path("lateNowMs").asDouble());
                Thread.sleep(100);
            }
            assertThat("the probe's lateness now, while a derivation holds the one carrier", lateNowMs,
                    greaterThanOrEqualTo(500.0));
            Http.Response metrics = admin.get("/observe/metrics");
            assertThat(metrics.took().toMillis(), lessThan(100L));
            assertThat(metrics.body(), containsString("loan_carrier_delay_late_now_seconds"));
            done.set(true);
        }
    }

    @Test
    void underTheListenersLimitTheAdminPortsHealthIsUp() throws Exception {
        try (ServerProcess server = spinning(4, "--limit", "fixed:2:0", "--max-derivations", "8");
                Http http = new Http(server.baseUri());
                Http admin = new Http(server.adminUri());
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            // a first answer loads the health path's classes on both sides (a cold one took 112 ms under the load)
            assertThat(admin.get("/observe/health").status(), is(200));
            List<CompletableFuture<Integer>> heavy = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                heavy.add(CompletableFuture.supplyAsync(() -> http.get("/member/verify-pooled").status(), clients));
            }
            await("the limit's permits taken").atMost(Duration.ofSeconds(20))
                    .until(() -> server.output().contains(SpinningHasherServer.SPINNING));
            // the service's port refuses even its health now: the limit counts every request
            assertThat(http.get("/observe/health").status(), is(503));
            Http.Response health = admin.get("/observe/health");
            assertThat(health.body(), health.status(), is(200));
            assertThat(health.took().toMillis(), lessThan(100L));
            assertThat(health.json().path("status").asText(), is("UP"));
            assertThat(admin.get("/observe/health/ready").status(), is(200));
            assertThat(admin.get("/runtime").status(), is(200));
            for (CompletableFuture<Integer> h : heavy) {
                h.join();
            }
        }
    }

    @Test
    void theAdminPortAnswersOnlyItsRoutesAndOnlyGet() throws Exception {
        try (ServerProcess server = spinning(1);
                Http admin = new Http(server.adminUri())) {
            Http.Response unknown = admin.get("/books");
            assertThat(unknown.status(), is(404));
            assertThat(unknown.json().path("error").asText(), is("route_not_found"));
            Http.Response post = admin.send("POST", "/runtime");
            assertThat(post.status(), is(405));
            assertThat(post.header("allow"), is("GET, HEAD"));
            assertThat(admin.get("/observe/metrics?name=no.such.meter").status(), is(404));
            int adminPort = URI.create(server.adminUri()).getPort();
            RawHttp.Response badQuery = RawHttp.get(adminPort, "/observe/metrics?name=%zz");
            // the JDK's HttpServer refuses a URI that does not parse before any handler sees it: its own short page
            assertThat(badQuery.body(), badQuery.status(), is(400));
            assertThat(badQuery.body(), not(containsString("\tat ")));
        }
    }

    /** However many pages poll it, the admin port answers a bounded number of requests a second; the rest get 503. */
    @Test
    void moreThanItsAllowanceOfRequestsASecondGet503() throws Exception {
        try (ServerProcess server = spinning(1);
                Http admin = new Http(server.adminUri())) {
            int ok = 0;
            Http.Response refused = null;
            long start = System.nanoTime();
            for (int i = 0; i < 3 * AdminServer.ANSWERS_PER_SECOND && refused == null; i++) {
                Http.Response r = admin.get("/runtime");
                if (r.status() == 200) {
                    ok++;
                } else {
                    refused = r;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            assertThat("a 503 after " + ok + " answers in " + seconds + " s", refused != null, is(true));
            assertThat(refused.body(), refused.status(), is(503));
            assertThat(refused.json().path("error").asText(), is("admin_busy"));
            assertThat(refused.header("retry-after"), is("1"));
            assertThat((double) ok, lessThan(AdminServer.ANSWERS_PER_SECOND * (1 + seconds) + 1));
            Thread.sleep(1100);
            assertThat("a second later it answers again", admin.get("/runtime").status(), is(200));
        }
    }

    private static ServerProcess spinning(int carriers, String... options) throws Exception {
        return ServerProcess.startListening(List.of(), SpinningHasherServer.class.getName(),
                SpinningHasherServer.args(carriers, "virtual", SPIN_MS, "default", options));
    }
}
