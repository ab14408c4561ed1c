package dev.loanruntime.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.nullValue;

/** The load client against a real server in this JVM whose delays and statuses are known. */
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class LoadRunIT {
    private static TestServer server;

    @BeforeAll
    static void start() {
        server = new TestServer();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static LoadConfig closed(Target target, String path, int concurrency, long requests, Duration timeout) {
        return new LoadConfig(target, path, 0, concurrency, 10_000, null, requests, 0, timeout, true, 0);
    }

    @Test
    void percentilesOfAKnownDelayAreThatDelay() throws InterruptedException {
        LoadRun.Measured m = LoadRun.run(closed(server.target(), "/sleep?ms=50", 4, 40, Duration.ofSeconds(10)));
        LoadReport.Latency ms = LoadReport.Latency.of(m.latencies());

        assertThat(m.requests(), is(40L));
        assertThat(m.failed(), is(0L));
        // Never faster than the server's sleep; generous above it, the machine is shared.
        assertThat(ms.p50(), allOf(greaterThanOrEqualTo(50.0), lessThan(250.0)));
        assertThat(ms.max(), greaterThanOrEqualTo(ms.p99()));
        // 4 workers x 10 sequential requests of >= 50 ms each: at least 0.5 s.
        assertThat(m.elapsedNanos(), greaterThanOrEqualTo(Duration.ofMillis(500).toNanos()));
        // The client's own CPU is measured, and waiting on a sleeping server keeps it from being busy. The figure is
        // this JVM's, which also runs the test server and, in the first test, compiles both: half a core at times.
        LoadReport.Client client = LoadReport.Client.of(m.cpuNanos(), m.elapsedNanos(), 2);
        assertThat(m.cpuNanos(), greaterThan(0L));
        assertThat(client.cpuCores(), lessThan(1.0));
        assertThat(client.bound(), is(false));
    }

    @Test
    void aClientThatKeepsItsCpusBusyIsMarkedAsTheLimit() {
        long second = Duration.ofSeconds(1).toNanos();
        assertThat(LoadReport.Client.of(second * 95 / 100, second, 1).bound(), is(true));
        assertThat(LoadReport.Client.of(second * 95 / 100, second, 2).bound(), is(false));
        assertThat(LoadReport.Client.of(-1, second, 1).cpuS(), is(nullValue()));
    }

    @Test
    void openLoopSendsAtTheRate() throws InterruptedException {
        LoadConfig config = new LoadConfig(server.target(), "/sleep?ms=20", 50, 1, 100, Duration.ofSeconds(2), 0, 0,
                Duration.ofSeconds(10), true, 0);
        LoadRun.Measured m = LoadRun.run(config);

        assertThat(m.requests(), is(100L)); // due at 0, 20, ..., 1980 ms
        assertThat(LoadReport.Latency.of(m.latencies()).p50(), greaterThanOrEqualTo(20.0));
    }

    @Test
    void errorStatusesAreCountedByCode() throws InterruptedException {
        LoadRun.Measured m = LoadRun.run(closed(server.target(), "/status?code=503", 2, 10, Duration.ofSeconds(10)));

        assertThat(m.errors(), is(Map.of("status 503", 10L)));
        assertThat(m.responses(), is(10L));
        assertThat(m.failed(), is(10L));
    }

    @Test
    void slowAnswersAreCountedAsTimeouts() throws InterruptedException {
        LoadRun.Measured m = LoadRun.run(closed(server.target(), "/sleep?ms=3000", 3, 3, Duration.ofMillis(300)));

        assertThat(m.errors(), is(Map.of("timeout", 3L)));
        assertThat(m.responses(), is(0L));
        assertThat(m.elapsedNanos(), lessThan(Duration.ofMillis(2500).toNanos()));
        // Nothing answered: no latency was measured, and the report says so rather than 0 ms
        LoadReport report = LoadReport.of(closed(server.target(), "/", 1, 1, Duration.ofSeconds(1)), "", m, null);
        assertThat(report.latencyMs().p99(), is(nullValue()));
        assertThat(report.okLatencyMs().max(), is(nullValue()));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        report.print(new PrintStream(printed, true, StandardCharsets.UTF_8));
        assertThat(printed.toString(StandardCharsets.UTF_8), containsString("p99         -" + System.lineSeparator()));
    }

    @Test
    void refusedConnectionsAreCountedAsConnectErrors() throws InterruptedException, IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Target nobody = Target.parse("http://127.0.0.1:" + closedPort);

        LoadRun.Measured m = LoadRun.run(closed(nobody, "/fast", 2, 6, Duration.ofSeconds(5)));

        assertThat(m.errors(), is(Map.of("connect", 6L)));
        assertThat(m.requests(), is(6L));
    }

    /**
     * The server holds every request for 1 s once. A closed loop of one worker waits once and sends nothing
     * meanwhile, so the stall is one sample in many; the open loop keeps sending at its rate and every request
     * due during the stall counts its wait from when it was due.
     */
    @Test
    void stalledServerShowsInTheOpenLoopP99ButHidesInTheClosedLoop() throws InterruptedException {
        double closedP99;
        double closedMax;
        try (TestServer stalling = new TestServer(50, 1000)) {
            LoadRun.Measured m = LoadRun.run(new LoadConfig(stalling.target(), "/serialized", 0, 1, 1, Duration.ofSeconds(3), 0,
                    0, Duration.ofSeconds(10), true, 0));
            closedP99 = LoadReport.Latency.of(m.latencies()).p99();
            closedMax = LoadReport.Latency.of(m.latencies()).max();
        }
        double openP99;
        try (TestServer stalling = new TestServer(50, 1000)) {
            LoadRun.Measured m = LoadRun.run(new LoadConfig(stalling.target(), "/serialized", 100, 1, 1000,
                    Duration.ofSeconds(3), 0, 0, Duration.ofSeconds(10), true, 0));
            openP99 = LoadReport.Latency.of(m.latencies()).p99();
        }

        assertThat("closed loop saw the stall once", closedMax, greaterThanOrEqualTo(1000.0));
        assertThat("open loop p99 shows the stall", openP99, greaterThanOrEqualTo(500.0));
        assertThat("closed loop p99 hides it", closedP99, lessThan(openP99 / 4));
        assertThat(openP99, greaterThan(0.0));
    }
}
