package dev.loanruntime.agent;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.notNullValue;

/**
 * The agent in JVMs that know nothing of loan-runtime (experiments/peers: the JDK's HTTP server, and Spring Boot), on
 * one carrier: CPU work inline shows in the agent's carrier-delay p99 while its /metrics
 * answers at once; the same work on a pool does not. The work comes in bursts (1 s of every 3): the samples a stall
 * swallows must be filled in for the p99 to see it, one late sample among a thousand would not move it.
 */
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class AgentIT {
    private static final Path AGENT = Path.of(System.getProperty("loan.agent.jar", "target/loan-runtime-agent.jar"));
    private static final Pattern METRICS =
            Pattern.compile("loan-runtime agent: .*(http://127\\.0\\.0\\.1:\\d+)/metrics");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    /**
     * The agent runs on the application's class path with nothing of loan-runtime beside it: every class its jar's
     * classes link must be in the jar or in the JDK, or the agent fails with NoClassDefFoundError in someone else's
     * JVM, on whatever path first reaches the missing class.
     */
    @Test
    void theAgentJarLinksNothingOutsideItselfAndTheJdk() {
        StringWriter out = new StringWriter();
        java.util.spi.ToolProvider jdeps = java.util.spi.ToolProvider.findFirst("jdeps").orElseThrow();
        int status = jdeps.run(new PrintWriter(out), new PrintWriter(out), "-verbose:class", AGENT.toString());
        assertThat(out.toString(), status, is(0));
        List<String> missing = out.toString().lines().filter(l -> l.contains("not found")).toList();
        assertThat("classes the agent jar links but does not carry", missing, empty());
        assertThat(out.toString(), containsString("dev.loanruntime.agent.shaded.org.HdrHistogram"));
    }

    @ParameterizedTest
    @EnumSource(App.class)
    void inlineWorkOnTheOnlyCarrierShowsInTheP99WhileMetricsAnswerAtOnce(App kind) throws Exception {
        try (ServerProcess app = app(kind, "-javaagent:" + AGENT.toAbsolutePath() + "=port=0")) {
            String metrics = metricsUri(app);
            assertThat(value(get(metrics + "/metrics"), "loan_carrier_delay_samples{thread=\"virtual\"}"),
                    greaterThanOrEqualTo(0.0));
            List<Long> scrapes = new ArrayList<>();
            CompletableFuture<Void> bursts = bursts(app, "/work?ms=1000", 2);
            while (!bursts.isDone()) {
                long start = System.nanoTime();
                get(metrics + "/metrics");
                scrapes.add((System.nanoTime() - start) / 1_000_000);
                Thread.sleep(200);
            }
            bursts.join();
            String text = get(metrics + "/metrics");
            double p99 = value(text, "loan_carrier_delay_seconds{quantile=\"0.99\",thread=\"virtual\"}");
            assertThat(kind + ": the virtual probe's p99 (s) over 10 s with 1 s of inline work every 3 s\n" + text,
                    p99, greaterThanOrEqualTo(0.5));
            assertThat(kind + ": ms of each scrape while the carrier was held: " + scrapes,
                    scrapes.stream().mapToLong(Long::longValue).max().orElseThrow(), lessThan(100L));
            assertThat("no pin watch unless pins=on\n" + text, value(text, "loan_pinned_events"), is(Double.NaN));
        }
    }

    @ParameterizedTest
    @EnumSource(App.class)
    void theSameWorkOnAPoolLeavesTheP99Low(App kind) throws Exception {
        try (ServerProcess app = app(kind, "-javaagent:" + AGENT.toAbsolutePath() + "=port=0,pins=on")) {
            String metrics = metricsUri(app);
            bursts(app, "/pooled?ms=1000", 2).join();
            String text = get(metrics + "/metrics");
            double p99 = value(text, "loan_carrier_delay_seconds{quantile=\"0.99\",thread=\"virtual\"}");
            // Well under the inline case's half second, not experiment 18's goal of 50 ms: the p99
            // spans the app's own start, in which a cold path once held the carrier past 50 ms in a CI run
            assertThat(kind + ": the virtual probe's p99 (s), the work on a pool\n" + text, p99, lessThan(0.1));
            assertThat("pins=on: the pin watch counts\n" + text, value(text, "loan_pinned_events"),
                    greaterThanOrEqualTo(0.0));
        }
    }

    @Test
    void attachLoadsTheMonitorsIntoARunningJvmOnce() throws Exception {
        try (ServerProcess app = app(App.PLAIN)) {
            assertThat(attach(app.pid(), "port=0").exitValue(), is(0));
            String metrics = metricsUri(app);
            assertThat(get(metrics + "/metrics"), containsString("loan_carrier_delay_seconds{quantile=\"0.99\""));
            Process again = attach(app.pid(), "port=0");
            assertThat(again.exitValue(), is(0));
            await("the second start's line").atMost(Duration.ofSeconds(10))
                    .until(() -> app.output().contains("loan-runtime agent: already running"));
        }
    }

    @Test
    void aBadOptionCostsTheApplicationNothingButALine() throws Exception {
        try (ServerProcess app = app(App.PLAIN, "-javaagent:" + AGENT.toAbsolutePath() + "=port=0,colour=red")) {
            assertThat(get("http://127.0.0.1:" + app.port() + "/cheap"), is("cheap"));
            assertThat(app.output(), containsString("loan-runtime agent: not started: unknown option 'colour=red'"));
        }
    }

    /**
     * The services the agent is tried in, each compiled here from experiments/peers and run on one carrier with no
     * loan-runtime class on its class path: the JDK's HTTP server alone, and Spring Boot (its jars from the project's
     * test class path, target/test-dependencies.classpath).
     */
    enum App {
        PLAIN("PlainVirtualThreadApp.java", "PlainVirtualThreadApp", false),
        SPRING("SpringVirtualThreadApp.java", "springpeer.SpringVirtualThreadApp", true);

        private final Path source;
        private final String mainClass;
        private final boolean springJars;

        App(String source, String mainClass, boolean springJars) {
            this.source = Path.of("experiments", "peers", source);
            this.mainClass = mainClass;
            this.springJars = springJars;
        }

        /** The jars it is compiled and run against: none, or the test class path's (Spring Boot's among them). */
        String jars() throws IOException {
            return springJars ? Files.readString(Path.of("target", "test-dependencies.classpath")).strip() : "";
        }
    }

    /** {@code kind}, compiled here, on one carrier with {@code jvmOptions}; started and listening. */
    private ServerProcess app(App kind, String... jvmOptions) throws IOException {
        Path classes = dir.resolve(kind.name().toLowerCase(Locale.ROOT));
        Files.createDirectories(classes);
        String jars = kind.jars();
        String classPath = jars.isEmpty() ? classes.toString() : classes + File.pathSeparator + jars;
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int compiled = javac.run(null, null, null, "-d", classes.toString(), "-cp", classPath,
                kind.source.toString());
        assertThat("javac " + kind.source, compiled, is(0));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        command.addAll(List.of(jvmOptions));
        // Spring Boot's own logging would refuse the test class path's second SLF4J provider; the JDK's will do
        command.addAll(List.of("-Dorg.springframework.boot.logging.LoggingSystem=none",
                "-Djdk.virtualThreadScheduler.parallelism=1", "-Djdk.virtualThreadScheduler.maxPoolSize=1", "-cp",
                classPath, kind.mainClass, "0"));
        ServerProcess app = ServerProcess.command(command);
        try {
            app.awaitPort(Duration.ofSeconds(90));
            return app;
        } catch (RuntimeException e) {
            app.close();
            throw e;
        }
    }

    /** {@code n} bursts of {@code path} (1 s of work), 3 s apart, on the app's port; done when the last is answered. */
    private static CompletableFuture<Void> bursts(ServerProcess app, String path, int n) {
        return CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    long start = System.nanoTime();
                    get("http://127.0.0.1:" + app.port() + path);
                    Thread.sleep(Math.max(0, 3000 - (System.nanoTime() - start) / 1_000_000));
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The agent's /metrics base, from its start-up line on the app's stderr. */
    private static String metricsUri(ServerProcess app) {
        String[] found = new String[1];
        await("the agent's start-up line").atMost(Duration.ofSeconds(30)).until(() -> {
            Matcher m = METRICS.matcher(app.output());
            if (m.find()) {
                found[0] = m.group(1);
            }
            return found[0] != null;
        });
        assertThat(found[0], notNullValue());
        return found[0];
    }

    private Process attach(long pid, String options) throws IOException, InterruptedException {
        String jar = System.getProperty("loan.jar", "target/loan-runtime.jar");
        Process attach = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                jar, "attach", Long.toString(pid), options, "--agent", AGENT.toAbsolutePath().toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("attach-" + System.nanoTime() + ".log").toFile())
                .start();
        assertThat("attach ended", attach.waitFor(60, TimeUnit.SECONDS), is(true));
        return attach;
    }

    private static String get(String uri) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(uri))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(uri + ": " + response.body(), response.statusCode(), is(200));
        return response.body();
    }

    /** The value of {@code sample} (name and labels, exactly) in Prometheus text. */
    private static double value(String text, String sample) {
        return text.lines().filter(l -> l.startsWith(sample + " ")).findFirst()
                .map(l -> Double.parseDouble(l.substring(sample.length() + 1)))
                .orElseThrow(() -> new AssertionError("no sample " + sample + " in\n" + text));
    }
}
