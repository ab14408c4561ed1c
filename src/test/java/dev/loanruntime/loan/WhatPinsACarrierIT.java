package dev.loanruntime.loan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.Jcmd;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What pins a carrier, in a child server with the default carriers: {@value #CLIENTS} clients each send
 * {@code /catalog/lookup?ms=}{@value #WAIT_MS} for a while with one {@code inside} kind. A kind that pins serves at
 * most carriers / wait requests a second (the carrier bound); one that does not, up to clients / wait. The bounds
 * are generous: pinned at most 3 times the carrier bound, free at least 5 times it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(240)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class WhatPinsACarrierIT {
    private static final int CLIENTS = 50;
    private static final int WAIT_MS = 100;
    private static final Duration SENDING = Duration.ofSeconds(2);
    private static final Duration WARM_UP = Duration.ofMillis(300);
    private static final int JDK = Runtime.version().feature();
    private static final int MARKER_MS = 333;
    /** The log line of a marker's pin: 333 ms and a little. */
    private static final Pattern MARKER_LINE = Pattern.compile("pinned 33[3-9]\\.\\d ms");
    private ServerProcess server;
    private Http http;
    private double carrierBound;

    @BeforeAll
    void start() throws Exception {
        server = ServerProcess.serve(List.of("--enable-native-access=ALL-UNNAMED"), "--log-pinned", "0ms");
        http = new Http(server.baseUri());
        await("runtime().path(\"pinned\").path(\"watching\").asBoolean()").atMost(Duration.ofSeconds(60))
                .until(() -> runtime().path("pinned").path("watching").asBoolean());
        carrierBound = runtime().path("carriers").asInt() * 1000.0 / WAIT_MS;
        // Every kind once, so that class loading and linking are not part of any measurement.
        for (String kind : List.of("none", "monitor", "lock")) {
            assertThat(http.get(lookup(kind)).status(), is(200));
        }
        if (JDK >= NativeWait.FIRST_FEATURE) {
            assertThat(http.get(lookup("native")).status(), is(200));
        }
        // And with every client at once: the first concurrent requests may load a class on several virtual threads
        // at the same time, and one that waits for another's load below the VM's native frame is pinned. A lock
        // burst that came first once counted 2 pins on a loaded machine; the lines of any such pin are in the
        // failure's reason (--log-pinned 0ms).
        for (String kind : List.of("none", "monitor", "lock")) {
            burst(kind, WARM_UP);
        }
    }

    @AfterAll
    void stop() {
        if (http != null) {
            http.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aPlainWaitServesFarPastTheCarrierBound() throws Exception {
        double rate = rate("none");
        assertThat("req/s with inside=none; carrier bound " + carrierBound, rate, greaterThanOrEqualTo(5 * carrierBound));
    }

    @Test
    void aWaitBelowANativeFrameHoldsItsCarrierAndIsCountedAndLogged() throws Exception {
        assumeTrue(JDK >= NativeWait.FIRST_FEATURE, "inside=native needs JDK " + NativeWait.FIRST_FEATURE
                + "; nativeIsRefusedWhereTheJdkCannotLinkIt covers this JDK");
        long before = pinsAfterAMarker();
        Burst burst = burst("native");
        assertThat("req/s with inside=native; carrier bound " + carrierBound, burst.rate(),
                lessThanOrEqualTo(3 * carrierBound));
        // one pinned park per request: the sleep in the comparator that libc calls
        assertThat(pinsAfterAMarker() - before - 1, greaterThanOrEqualTo((long) burst.answered()));
        assertThat(runtime().toString(), runtime().path("pinned").path("longestMs").asDouble(),
                greaterThanOrEqualTo(0.9 * WAIT_MS));
        assertThat(server.output(), containsString("NativeWait.compare"));
        assertThat(server.output(), containsString("pinned 1"));
        String metrics = http.get("/observe/metrics").body();
        assertThat(metrics, containsString("loan_pinned_events"));
    }

    @Test
    void nativeIsRefusedWhereTheJdkCannotLinkIt() {
        assumeTrue(JDK < NativeWait.FIRST_FEATURE, "JDK " + JDK + " links the native wait");
        Http.Response r = http.get(lookup("native"));
        assertThat(r.body(), r.status(), is(501));
        assertThat(r.text("error"), is("native_wait_unavailable"));
        assertThat(r.text("message"), containsString("JDK " + NativeWait.FIRST_FEATURE));
    }

    @Test
    void aLockNeverPins() throws Exception {
        long before = pinsAfterAMarker();
        int logged = server.output().length();
        Burst burst = burst("lock");
        assertThat("req/s with inside=lock; carrier bound " + carrierBound, burst.rate(),
                greaterThanOrEqualTo(5 * carrierBound));
        assertThat("pins during " + burst.answered() + " lock waits: " + pinLines(logged),
                pinsAfterAMarker() - before - 1, is(0L));
    }

    @Test
    void aMonitorPinsBeforeJdk24AndNotSince() throws Exception {
        long before = pinsAfterAMarker();
        int logged = server.output().length();
        Burst burst = burst("monitor");
        if (JDK >= 24) {
            assertThat("JDK " + JDK + " (JEP 491): req/s with inside=monitor; carrier bound " + carrierBound,
                    burst.rate(), greaterThanOrEqualTo(5 * carrierBound));
            assertThat("pins during " + burst.answered() + " monitor waits: " + pinLines(logged),
                    pinsAfterAMarker() - before - 1, is(0L));
        } else {
            assertThat("JDK " + JDK + ": req/s with inside=monitor; carrier bound " + carrierBound,
                    burst.rate(), lessThanOrEqualTo(3 * carrierBound));
            assertThat(pinsAfterAMarker() - before - 1, greaterThanOrEqualTo((long) burst.answered()));
        }
    }

    @Test
    void withoutTheWatchNoRecordingRunsAndNoPinIsCounted() throws Exception {
        String kind = JDK >= NativeWait.FIRST_FEATURE ? "native" : "monitor";
        try (ServerProcess unwatched = ServerProcess.serve(List.of("--enable-native-access=ALL-UNNAMED"),
                "--pin-watch", "off");
             Http client = new Http(unwatched.baseUri())) {
            assertThat(client.get(lookup(kind)).status(), is(200));
            // A watch that runs reports itself once its recording has started (within a second or so on an idle
            // machine; start() allows a minute): three seconds without it, then JFR itself is asked.
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                    .until(() -> !client.get("/runtime").json().path("pinned").path("watching").asBoolean());
            assertThat(client.get("/observe/metrics").body(),
                    containsString("loan_pinned_events{scope=\"application\",} NaN"));
            assertThat(Jcmd.run(unwatched.pid(), "JFR.check"), containsString("No available recordings"));
        }
    }

    @Test
    void aBadInsideIsRefusedNamingTheAcceptedKinds() {
        Http.Response r = http.get("/catalog/lookup?ms=1&inside=sideways");
        assertThat(r.body(), r.status(), is(400));
        assertThat(r.text("error"), is("bad_query"));
        assertThat(r.text("message"), containsString("none, monitor, lock, native"));
        assertThat(r.text("message"), containsString("'sideways'"));
    }

    /**
     * The pins counted once a marker's pin is: a request known to pin for {@value #MARKER_MS} ms, whose log line
     * ({@code --log-pinned}) says when its event has arrived. JFR delivers the events in the order they happened,
     * about once a second, so every pin before the marker is counted by then; no waiting for a quiet period.
     */
    private long pinsAfterAMarker() {
        String marker = JDK >= NativeWait.FIRST_FEATURE ? "native" : "monitor";
        long markers = MARKER_LINE.matcher(server.output()).results().count();
        assertThat(http.get("/catalog/lookup?ms=" + MARKER_MS + "&inside=" + marker).status(), is(200));
        await("the pin watch's --log-pinned line for a " + MARKER_MS + " ms inside=" + marker + " request")
                .atMost(Duration.ofSeconds(30))
                .until(() -> MARKER_LINE.matcher(server.output()).results().count() > markers);
        return pins();
    }

    /** The server's pin lines ({@code --log-pinned 0ms} logs every pin) from offset {@code from} of its output. */
    private String pinLines(int from) {
        return server.output().substring(from).lines().filter(l -> l.contains("pinned "))
                .collect(Collectors.joining("\n", "\n", ""));
    }

    private record Burst(int answered, double rate) {
    }

    private double rate(String kind) throws Exception {
        return burst(kind).rate();
    }

    private Burst burst(String kind) throws Exception {
        return burst(kind, SENDING);
    }

    /** {@value #CLIENTS} clients send for {@code sending}; the rate counts until the last answer. */
    private Burst burst(String kind, Duration sending) throws Exception {
        AtomicInteger answered = new AtomicInteger();
        long start = System.nanoTime();
        long deadline = start + sending.toNanos();
        List<Future<?>> clients = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(pool.submit(() -> {
                    while (System.nanoTime() < deadline) {
                        Http.Response r = http.get(lookup(kind));
                        assertThat(r.body(), r.status(), is(200));
                        answered.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> client : clients) {
                client.get();
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Burst(answered.get(), answered.get() / seconds);
    }

    private long pins() {
        return runtime().path("pinned").path("events").asLong();
    }

    private JsonNode runtime() {
        return http.get("/runtime").json();
    }

    private static String lookup(String kind) {
        return "/catalog/lookup?ms=" + WAIT_MS + "&inside=" + kind;
    }
}
