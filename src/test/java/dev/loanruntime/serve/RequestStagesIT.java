package dev.loanruntime.serve;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.stages.StageTimes;
import dev.loanruntime.testing.ServerProcess;
import dev.loanruntime.testing.RawHttp;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

/**
 * The stages say where a request waited. The lesson's pattern: one heavy request, then light ones on fresh
 * connections while it runs, against a child server whose derivation spins the CPU for {@value #SPIN_MS} ms
 * without allocating. Bounds are generous: they tell "waited for the heavy one" from "did not", nothing finer.
 */
@Timeout(180)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class RequestStagesIT {
    private static final long SPIN_MS = 600;
    private static final String ASK = "Loan-Timing: on";
    private static final long GAP_MS = 50;

    @Test
    void lightRequestsWaitForACarrierWhileABlockingDerivationHoldsTheOnlyOne() throws Exception {
        try (ServerProcess server = spinning(1, "virtual")) {
            Round round = lessonRound(server, "/member/verify-blocking");
            double heavyHandler = round.heavy.ms("handler");
            assertThat("the heavy request's handler derives inline", heavyHandler, greaterThan(SPIN_MS * 0.8));
            for (StageTimes light : round.lights) {
                assertThat("light " + light + " vs heavy " + round.heavy, light.ms("carrier"),
                        greaterThanOrEqualTo(0.5 * heavyHandler));
                // one carrier: the light connection's thread cannot run before the heavy one lets go of it
                assertThat("light " + light + " vs heavy " + round.heavy, light.firstRan(),
                        greaterThan(round.heavy.beforeSend()));
            }
        }
    }

    @Test
    void lightRequestsDoNotWaitWhileThePoolDerives() throws Exception {
        try (ServerProcess server = spinning(1, "virtual")) {
            Round round = lessonRound(server, "/member/verify-pooled");
            double heavyDerive = round.heavy.ms("derive");
            assertThat("the pool derives: " + round.heavy, heavyDerive, greaterThan(SPIN_MS * 0.8));
            assertThat(round.heavy.stage("crypto-queue").isPresent(), is(true));
            assertThat(round.heavy.stage("resume").isPresent(), is(true));
            for (StageTimes light : round.lights) {
                assertThat("light " + light + " vs heavy " + round.heavy, light.ms("carrier"),
                        lessThan(0.25 * heavyDerive));
            }
        }
    }

    @Test
    void aDefaultServerStampsNothingAndSendsNoHeaderEvenWhenAsked() throws Exception {
        try (ServerProcess server = spinning(2, "virtual", "default")) {
            RawHttp.Response asked = RawHttp.get(server.port(), "/books", ASK);
            assertThat(asked.status(), is(200));
            assertThat(asked.header("Server-Timing"), nullValue());
        }
    }

    @Test
    void theHeaderComesOnlyWhenAskedFor() throws Exception {
        try (ServerProcess server = spinning(2, "virtual")) {
            RawHttp.Response plain = RawHttp.get(server.port(), "/books");
            assertThat(plain.status(), is(200));
            assertThat(plain.header("Server-Timing"), nullValue());
            RawHttp.Response asked = RawHttp.get(server.port(), "/books", ASK);
            assertThat(asked.header("Server-Timing"), notNullValue());
            StageTimes times = StageTimes.parse(asked.header("Server-Timing"));
            assertThat(times.millis().keySet().toString(), times.millis().keySet().stream().toList(),
                    is(List.of("carrier", "line", "headers", "admit", "handler", "total")));
        }
    }

    @Test
    void aSlowClientsHeadersShowInHeadersNotInCarrier() throws Exception {
        try (ServerProcess server = spinning(1, "virtual")) {
            RawHttp.get(server.port(), "/books");     // the first connection's thread start is not under test
            RawHttp.Response slow;
            try (RawHttp.Connection connection = RawHttp.connect(server.port(), Duration.ofSeconds(60))) {
                connection.send("GET /books HTTP/1.1\r\n");
                Thread.sleep(400);      // a slow client's header block: the stimulus under test, not a wait
                connection.send("Host: 127.0.0.1\r\nConnection: close\r\n" + ASK + "\r\n\r\n");
                slow = connection.read();
            }
            StageTimes times = StageTimes.parse(slow.header("Server-Timing"));
            assertThat(times.toString(), times.ms("headers"), greaterThan(200.0));
            assertThat(times.toString(), times.ms("carrier"), lessThan(times.ms("headers") / 2));
        }
    }

    /**
     * The blind spot, stated: a later request on a kept-alive connection that waits for the only carrier shows no
     * {@code carrier} stage; the wait is inside {@code idle}, outside the server's total, and only the client's
     * time minus the server's total ({@code outside}) shows it.
     */
    @Test
    void onAKeptAliveConnectionACarrierWaitHidesInIdleAndOutside() throws Exception {
        try (ServerProcess server = spinning(1, "virtual");
                RawHttp.Connection connection = RawHttp.connect(server.port(), Duration.ofSeconds(60));
                ExecutorService clients = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().factory())) {
            int port = server.port();
            assertThat(connection.get("/books", ASK).status(), is(200));
            int spinsBefore = spins(server);
            Future<RawHttp.Response> heavy = clients.submit(() -> RawHttp.get(port, "/member/verify-blocking", ASK));
            // Sent while the derivation holds the carrier: the heavy one's own carrier wait may vary.
            await("spins(server) > spinsBefore").atMost(Duration.ofSeconds(30))
                    .until(() -> spins(server) > spinsBefore);
            long laterSent = System.nanoTime();
            RawHttp.Response later = connection.get("/books", ASK);
            double laterClientMs = (System.nanoTime() - laterSent) / 1e6;
            StageTimes heavyTimes = times(heavy.get());
            StageTimes times = times(later);
            double outside = laterClientMs - times.ms("total");
            String both = "later " + times + " (client " + laterClientMs + " ms), heavy " + heavyTimes;
            assertThat(both, times.stage("carrier").isPresent(), is(false));
            assertThat(both, times.ms("idle"), greaterThan(0.5 * heavyTimes.ms("handler")));
            assertThat(both, times.ms("total"), lessThan(0.25 * heavyTimes.ms("handler")));
            assertThat(both, outside, greaterThan(0.5 * heavyTimes.ms("handler")));
        }
    }

    @Test
    void platformThreadsQueueNothingAndHoldNoCarrier() throws Exception {
        try (ServerProcess server = spinning(1, "platform")) {
            Round round = lessonRound(server, "/member/verify-blocking");
            assertThat(round.heavy.toString(), round.heavy.ms("handler"), greaterThan(SPIN_MS * 0.8));
            for (StageTimes light : round.lights) {
                assertThat(light.toString(), light.stage("queue").isPresent(), is(true));
                assertThat("light " + light + " vs heavy " + round.heavy, light.ms("queue") + light.ms("carrier"),
                        lessThan(0.25 * SPIN_MS));
            }
        }
    }

    private record Round(StageTimes heavy, List<StageTimes> lights) {
    }

    /**
     * One heavy request and, {@value #GAP_MS} ms later, four light ones, each on a fresh connection. Fails when the
     * light ones reached the server after the heavy one was done: then the round shows nothing.
     */
    private static Round lessonRound(ServerProcess server, String heavyPath) throws Exception {
        int port = server.port();
        for (int i = 0; i < 20; i++) {      // warm-up, so that the light requests' own work is small
            RawHttp.get(port, "/books", ASK);
        }
        List<StageTimes> lightTimes = new ArrayList<>();
        StageTimes heavyTimes;
        // A thread per request: a shared pool may be too small to have them all in flight at once.
        try (ExecutorService clients = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().factory())) {
            Future<RawHttp.Response> heavy = clients.submit(() -> RawHttp.get(port, heavyPath, ASK));
            Thread.sleep(GAP_MS);   // the lesson's gap: part of the stimulus, not a wait for the server
            List<Future<RawHttp.Response>> lights = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                lights.add(clients.submit(() -> RawHttp.get(port, "/books", ASK)));
            }
            for (var light : lights) {
                lightTimes.add(times(light.get()));
            }
            heavyTimes = times(heavy.get());
        }
        for (StageTimes light : lightTimes) {
            assertThat("too late to test: a light request arrived after the heavy one was done; heavy " + heavyTimes
                    + ", light " + light, light.origin(), lessThan(heavyTimes.beforeSend()));
        }
        return new Round(heavyTimes, lightTimes);
    }

    private static StageTimes times(RawHttp.Response response) {
        assertThat(response.body(), response.status(), is(200));
        return StageTimes.parse(response.header("Server-Timing"));
    }

    private static int spins(ServerProcess server) {
        return server.output().split(SpinningHasherServer.SPINNING, -1).length - 1;
    }

    private static ServerProcess spinning(int carriers, String threads) throws java.io.IOException {
        return spinning(carriers, threads, "on");
    }

    private static ServerProcess spinning(int carriers, String threads, String stages) throws java.io.IOException {
        return ServerProcess.startListening(List.of("-Xmx256m"), SpinningHasherServer.class.getName(),
                SpinningHasherServer.args(carriers, threads, SPIN_MS, stages));
    }
}
