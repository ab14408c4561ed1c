package dev.loanruntime.client;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.imageio.ImageIO;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.loanruntime.testing.CliRun;
import dev.loanruntime.testing.ServerProcess;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;

/** probe, load and chart as a user runs them: output lines, JSON files, PNGs and exit codes. */
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class CommandLineIT {
    private static final Pattern LESSON_LINE = Pattern.compile("(?m)^(heavy|light-\\d)\\s+(\\d+\\.\\d{3}) s$");

    @TempDir
    Path dir;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    private static double heavy(String output) {
        return durations(output, "heavy")[0];
    }

    private static double lightMedian(String output) {
        double[] light = durations(output, "light-");
        return ProbeReport.median(light);
    }

    private static double[] durations(String output, String prefix) {
        Matcher m = LESSON_LINE.matcher(output);
        List<Double> found = new java.util.ArrayList<>();
        while (m.find()) {
            if (m.group(1).startsWith(prefix)) {
                found.add(Double.parseDouble(m.group(2)));
            }
        }
        if (found.isEmpty()) {
            throw new AssertionError("no line for " + prefix + " in:\n" + output);
        }
        return found.stream().mapToDouble(Double::doubleValue).toArray();
    }

    @Test
    void probePrintsTheLessonsLinesAndLightRequestsWaitForBlockingWorkOnOneCarrier() throws IOException {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--carriers", "1")) {
            Path json = dir.resolve("probe.json");
            // A longer gap than the lesson's 50 ms, so that on a busy machine the derivation has begun.
            CliRun blocking = run("probe", "--url", server.baseUri(), "--heavy", "/member/verify-blocking",
                    "--gap-ms", "200", "--json", json.toString());
            CliRun pooled = run("probe", "--url", server.baseUri(), "--heavy", "/member/verify-pooled", "--gap-ms", "200");

            assertThat(blocking.err(), blocking.code(), is(0));
            assertThat(pooled.err(), pooled.code(), is(0));
            Matcher lines = LESSON_LINE.matcher(blocking.out());
            int count = 0;
            while (lines.find()) {
                count++;
            }
            assertThat(blocking.out(), count, is(5));
            // Generous margins: the light requests waited for most of the derivation, or for almost none of it.
            assertThat(blocking.out(), lightMedian(blocking.out()), greaterThan(0.5 * heavy(blocking.out())));
            assertThat(pooled.out(), lightMedian(pooled.out()), lessThan(0.25 * heavy(pooled.out())));

            JsonNode report = Results.read(json);
            assertThat(report.path("config").path("heavy").asText(), is("/member/verify-blocking"));
            assertThat(report.path("rounds").get(0).path("requests").size(), is(5));
            assertThat(report.path("rounds").get(0).path("requests").get(1).path("startMs").asDouble(),
                    greaterThan(195.0)); // the light requests left --gap-ms after the round started
        }
    }

    @Test
    void probeWithoutOptionsSendsTheLessonsRoundAndSaysWhyStagesAreMissing() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of())) {
            // Only the URL comes from outside (LOAN_PROBE_URL): the server listens on a free port, not on 8430.
            Map<String, String> env = Map.of("LOAN_PROBE_URL", server.baseUri());
            String plain = probeProcess(env, "probe");
            String staged = probeProcess(env, "probe", "--stages");

            for (String out : List.of(plain, staged)) {
                assertThat(out, containsString("--- round 1/1: heavy /member/verify-blocking, 4 x light /books 50 ms "
                        + "later ---"));
                assertThat(out, durations(out, "light-").length, is(4));
            }
            assertThat(plain, not(containsString("Server-Timing")));
            // the server runs without --stages on: one line says so, once
            assertThat(staged, staged.split(Pattern.quote(StageTable.NO_STAGES), -1).length, is(2));
            assertThat(staged, containsString("'serve --stages on'"));
        }
    }

    /** A probe in a JVM of its own, so that its settings can come from the environment; its output once it exited 0. */
    private static String probeProcess(Map<String, String> env, String... args) throws Exception {
        try (ServerProcess probe = ServerProcess.start(env, List.of(), "dev.loanruntime.Main", List.of(args))) {
            int exit = probe.awaitExit(Duration.ofSeconds(120));
            assertThat(probe.output(), exit, is(0));
            return probe.output();
        }
    }

    @Test
    void loadPrintsConfigurationThenPercentilesAndWritesJson() {
        try (TestServer server = new TestServer()) {
            Path json = dir.resolve("load.json");
            CliRun r = run("load", "--url", server.target().toString(), "--path", "/sleep?ms=10", "--requests", "20",
                    "--concurrency", "2", "--watch-pid", Long.toString(ProcessHandle.current().pid()),
                    "--json", json.toString());

            assertThat(r.err(), r.code(), is(0));
            assertThat(r.out(), r.out().lines().findFirst().orElse(""), containsString("mode=closed concurrency=2"));
            for (String line : List.of("throughput", "p50", "p90", "p99", "p99.9", "max", "errors      none", "server")) {
                assertThat(r.out(), containsString(line));
            }
            JsonNode report = Results.read(json);
            assertThat(report.path("requests").asLong(), is(20L));
            assertThat(report.path("latencyMs").path("p50").asDouble(), greaterThan(9.9));
            assertThat(report.path("server").path("peakThreads").asInt(), greaterThan(0));
            assertThat(report.path("cdf").size(), greaterThan(2));
        }
    }

    /**
     * SIGTERM ends a long run early and it still reports, counting the requests in flight at the signal (each takes
     * 300 ms, so two are in flight at any moment): a script can run a load until something else is done.
     */
    @ParameterizedTest
    @ValueSource(strings = {"--concurrency=2", "--rate=10"})
    void loadStoppedBySigtermStillReportsAndLosesNoRequest(String loop) throws Exception {
        try (TestServer server = new TestServer()) {
            Path json = dir.resolve("stopped.json");
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), "dev.loanruntime.Main", "load", "--url",
                    server.target().toString(), "--path", "/sleep?ms=300", loop, "--duration", "120s",
                    "--json", json.toString()).redirectErrorStream(true).start();
            try {
                p.getOutputStream().close();
                Thread.sleep(3000);
                p.toHandle().destroy(); // SIGTERM; Process.destroy() would also close its output
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(out, p.waitFor(), is(0));
                assertThat(out, containsString("stopped by a signal"));
                JsonNode report = Results.read(json);
                assertThat(out, report.path("stopped").asBoolean(), is(true));
                assertThat(out, report.path("requests").asLong(), greaterThan(1L));
                assertThat("every request finished, none cut: " + out, report.path("failed").asLong(), is(0L));
                assertThat("every request the server got is in the report: " + out, report.path("requests").asLong(),
                        is((long) server.sleeps()));
                assertThat(out, report.path("elapsedS").asDouble(), lessThan(30.0));
            } finally {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void loadShowsItsProgressOnATerminalAndNothingInAPipe() throws Exception {
        try (TestServer server = new TestServer()) {
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), "dev.loanruntime.Main", "load", "--url",
                    server.target().toString(), "--path", "/sleep?ms=10", "--duration", "3s", "--concurrency", "2");
            // script(1) runs the command on a pseudo-terminal, as a person at a shell would
            String shell = String.join(" ", command.stream().map(a -> "'" + a.replace("'", "'\\''") + "'").toList());
            Process p = new ProcessBuilder("script", "-qefc", shell, "/dev/null").redirectErrorStream(true).start();
            try {
                p.getOutputStream().close();
                String terminal = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(terminal, p.waitFor(), is(0));
                assertThat("a line each second while it runs", terminal, containsString("s of 3s: "));
                assertThat(terminal, containsString(" answered, 0 failed, "));
                assertThat("the report follows", terminal, containsString("throughput"));
            } finally {
                p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            CliRun piped = run("load", "--url", server.target().toString(), "--path", "/sleep?ms=10", "--duration",
                    "2s", "--concurrency", "2");
            assertThat(piped.err(), piped.code(), is(0));
            assertThat("nothing but the report when the output is not a terminal", piped.out() + piped.err(),
                    not(containsString("answered,")));
        }
    }

    @Test
    void badUrlExitsWithTwoAndOneLineNamingIt() {
        String line = run("probe", "--url", "localhost:8430", "--heavy", "/member/verify-blocking").usageLine();

        assertThat(line, containsString("--url"));
        assertThat(line, containsString("'localhost:8430'"));
    }

    @Test
    void unreachableHostExitsWithTwoAndSaysSo() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        CliRun r = run("load", "--url", "http://127.0.0.1:" + closedPort, "--requests", "1");

        assertThat(r.usageLine(), containsString("cannot connect to http://127.0.0.1:" + closedPort));
        assertThat(r.out(), not(containsString("throughput")));
    }

    @Test
    void bothDurationAndRequestsIsAUsageError() {
        try (TestServer server = new TestServer()) {
            CliRun r = run("load", "--url", server.target().toString(), "--duration", "1s", "--requests", "5");

            assertThat(r.code(), is(2));
            assertThat(r.err(), containsString("--duration"));
        }
    }

    @Test
    void chartsAreDrawnFromTheJsonFiles() throws IOException {
        try (TestServer server = new TestServer()) {
            Path probe = dir.resolve("p.json");
            Path load = dir.resolve("l.json");
            assertThat(run("probe", "--url", server.target().toString(), "--heavy", "/sleep?ms=100",
                    "--light", "/fast", "--json", probe.toString()).code(), is(0));
            assertThat(run("load", "--url", server.target().toString(), "--path", "/fast", "--requests", "50",
                    "--json", load.toString()).code(), is(0));

            Path timeline = dir.resolve("timeline.png");
            Path cdf = dir.resolve("cdf.png");
            Path scaling = dir.resolve("scaling.png");
            for (CliRun r : List.of(run("chart", "timeline", "--out", timeline.toString(), probe.toString()),
                    run("chart", "cdf", "--log", "--out", cdf.toString(), load.toString(), load.toString()),
                    run("chart", "scaling", "--mark", "2", "--out", scaling.toString(), "1=" + load, "2=" + load))) {
                assertThat(r.err(), r.code(), is(0));
            }
            for (Path png : List.of(timeline, cdf, scaling)) {
                assertThat(png.toString(), ImageIO.read(png.toFile()).getWidth(), greaterThan(500));
            }
            assertThat(Files.size(timeline), greaterThan(1000L));
            assertThat(run("chart", "scaling", "--out", scaling.toString(), "x=" + load).code(), is(2));
            Path empty = dir.resolve("empty.json");
            Files.writeString(empty, "{\"rounds\": []}");
            CliRun none = run("chart", "timeline", "--out", timeline.toString(), empty.toString());
            assertThat(none.err(), none.code(), is(2));
            assertThat(none.err(), containsString(empty + " has no probe rounds to draw"));
            assertThat("one line, no stack trace", none.err(), not(containsString("\tat ")));
        }
    }

    @Test
    void deriveMeasuresEachProviderAloneAndOnAPool() {
        for (String provider : List.of("reuse", "bouncycastle", "conscrypt")) {
            Path json = dir.resolve(provider + ".json");
            CliRun r = run("derive", "--scrypt", provider, "--cost", "1024,8,1", "--threads", "2", "--count", "6",
                    "--single", "3", "--json", json.toString());
            assertThat(r.err(), r.code(), is(0));
            assertThat(r.out(), containsString("derive scrypt=" + provider + " cost=1024,8,1 threads=2 count=6"));
            assertThat(r.out(), containsString("pool      6 derivations on 2 threads"));
            JsonNode report = Results.read(json);
            assertThat(report.get("provider").asText(), is(provider));
            assertThat(report.get("singleMs").size(), is(3));
            assertThat(report.get("singleMedianMs").asDouble(), greaterThan(0.0));
            assertThat(report.get("poolRate").asDouble(), greaterThan(0.0));
            assertThat(report.get("efficiency").asDouble(), greaterThan(0.0));
            assertThat(r.out(), containsString(" allocated "));
            assertThat(report.get("singleAllocatedBytes").asDouble(), greaterThan(0.0));
            assertThat(report.get("poolAllocatedBytes").asDouble(), greaterThan(0.0));
        }
        // without --threads: one pool thread per core, not the server's thread model from application.yaml
        CliRun defaults = run("derive", "--cost", "16,1,1", "--count", "1", "--single", "1");
        assertThat(defaults.err(), defaults.code(), is(0));
        assertThat(defaults.out(), containsString("derive scrypt=reuse cost=16,1,1 threads="
                + Runtime.getRuntime().availableProcessors() + " "));
        CliRun bad = run("derive", "--scrypt", "openssl");
        assertThat(bad.code(), is(2));
        assertThat(bad.err(), containsString("'openssl'"));
        assertThat(run("derive", "--threads", "0").code(), is(2));
    }
}
