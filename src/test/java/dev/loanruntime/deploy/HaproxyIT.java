package dev.loanruntime.deploy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.LoadLoop;
import dev.loanruntime.testing.Ports;
import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.both;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

/**
 * deploy/haproxy.cfg with the real HAProxy: the file is valid, and a balancer started from it (its addresses from
 * the environment, on free ports) marks a real server UP through its HTTP/1.1 health check, passes a request to it,
 * and answers its own JSON 503 once no host is up. Without haproxy on the PATH the tests are skipped with a message,
 * except under {@code CI=true}, where they must run.
 */
@Timeout(120)
// prints what it found: never while another test reads System.out
@ResourceLock(value = Resources.SYSTEM_OUT, mode = ResourceAccessMode.READ)
class HaproxyIT {
    static final Path CONFIG = Path.of("deploy", "haproxy.cfg");

    @Test
    void theConfigurationIsValid() throws Exception {
        Path haproxy = haproxy();
        Process check = new ProcessBuilder(haproxy.toString(), "-c", "-f", CONFIG.toString())
                .redirectErrorStream(true).start();
        try {
            String output = new String(check.getInputStream().readAllBytes());
            assertThat(output, check.waitFor(), is(0));
            assertThat(output, containsString("Configuration file is valid"));
        } finally {
            check.destroyForcibly();
        }
    }

    @Test
    void theHealthCheckMarksARealServerUpAndARequestPassesThenNoHostGetsJson503() throws Exception {
        Path haproxy = haproxy();
        int front = Ports.freeOutsideEphemeralRange();
        int stats = Ports.freeOutsideEphemeralRange();
        Path log = Files.createTempFile("haproxy", ".log");
        // host2 of the config, 127.0.0.2; host3 and host4 (127.0.0.3, .4) have nothing listening on the port.
        try (ServerProcess server = ServerProcess.serve(List.of(), "--host", "127.0.0.2", "--drain-delay", "0")) {
            ProcessBuilder builder = new ProcessBuilder(haproxy.toString(), "-db", "-f", CONFIG.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            Map<String, String> env = builder.environment();
            env.put("LOAN_LB_BIND", "127.0.0.1:" + front);
            env.put("LOAN_LB_STATS_BIND", "127.0.0.1:" + stats);
            env.put("LOAN_SERVICE_PORT", Integer.toString(server.port()));
            Process balancer = builder.start();
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    if (!balancer.isAlive()) {
                        throw new IllegalStateException("haproxy exited:\n" + Files.readString(log));
                    }
                    return listens(stats);
                });
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                        .until(() -> state(stats, "host2"), is("UP|L7OK"));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                        .until(() -> state(stats, "host3") + " " + state(stats, "host4"),
                                both(startsWith("DOWN|")).and(containsString(" DOWN|")));

                RawHttp.Response status = RawHttp.get(front, "/status");
                assertThat(status.body(), status.status(), is(200));
                assertThat("the server that answered through the balancer", status.pid(), is(server.pid()));

                server.close();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                        .until(() -> state(stats, "host2"), startsWith("DOWN|"));
                Http.Response none = new Http("http://127.0.0.1:" + front).get("/books");
                assertThat(none.body(), none.status(), is(503));
                assertThat(none.header("Content-Type"), containsString("application/json"));
                assertThat(none.header("Retry-After"), is("1"));
                assertThat(none.json().get("error").asText(), is("no_server"));
            } finally {
                balancer.destroyForcibly();
                balancer.waitFor(10, TimeUnit.SECONDS);
                System.out.println("haproxy's log:\n" + Files.readString(log));
                Files.deleteIfExists(log);
            }
        }
    }

    /**
     * A host SIGKILLed with GETs in hand costs its clients nothing: the balancer resends each of them to the other
     * host (retry-on empty-response, redispatch), which HTTP allows for GET. Two servers, on 127.0.0.2 and 127.0.0.3,
     * and four clients sending 200 ms GETs through the balancer, so that the killed host always holds some.
     */
    @Test
    void aHostSigkilledWithGetsInHandCostsNoGet() throws Exception {
        Path haproxy = haproxy();
        int front = Ports.freeOutsideEphemeralRange();
        int stats = Ports.freeOutsideEphemeralRange();
        int service = Ports.freeOutsideEphemeralRange();
        Path log = Files.createTempFile("haproxy", ".log");
        try (ServerProcess host2 = host("127.0.0.2", service);
             ServerProcess host3 = host("127.0.0.3", service)) {
            Process balancer = balancer(haproxy, front, stats, service, log);
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                        .until(() -> state(stats, "host2") + " " + state(stats, "host3"), is("UP|L7OK UP|L7OK"));
                LoadLoop gets = LoadLoop.start(front, "/catalog/lookup?ms=200", 4, Duration.ofMillis(50),
                        Duration.ofMinutes(2), LoadLoop.Retry.NEVER);
                await("gets.ok() >= 20").atMost(Duration.ofSeconds(30)).until(() -> gets.ok() >= 20);
                host3.process().destroyForcibly();   // SIGKILL: its GETs in hand end with the connection
                int atKill = gets.ok();
                await("gets.ok() >= atKill + 40").atMost(Duration.ofSeconds(60)).until(() -> gets.ok() >= atKill + 40);
                gets.stop();

                assertThat("GETs failed through the balancer: " + gets.failures(), gets.failed(), is(0));
                await("the killed host is out").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .ignoreExceptions().until(() -> state(stats, "host3"), startsWith("DOWN"));
            } finally {
                balancer.destroyForcibly();
                balancer.waitFor(10, TimeUnit.SECONDS);
                System.out.println("haproxy's log:\n" + Files.readString(log));
                Files.deleteIfExists(log);
            }
        }
    }

    private static ServerProcess host(String address, int port) throws IOException {
        return ServerProcess.startListening(List.of(), "dev.loanruntime.Main",
                List.of("serve", "--host", address, "--port", Integer.toString(port), "--drain-delay", "0"));
    }

    /** HAProxy with deploy/haproxy.cfg, clients on {@code front}, stats on {@code stats}, its log into {@code log}. */
    private static Process balancer(Path haproxy, int front, int stats, int service, Path log) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(haproxy.toString(), "-db", "-f", CONFIG.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.put("LOAN_LB_BIND", "127.0.0.1:" + front);
        env.put("LOAN_LB_STATS_BIND", "127.0.0.1:" + stats);
        env.put("LOAN_SERVICE_PORT", Integer.toString(service));
        Process balancer = builder.start();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (!balancer.isAlive()) {
                throw new IllegalStateException("haproxy exited:\n" + Files.readString(log));
            }
            return listens(stats);
        });
        return balancer;
    }

    private static boolean listens(int port) {
        try {
            RawHttp.get(port, "/haproxy-stats;csv");
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A server's status and last check result from the stats page's CSV, e.g. {@code "UP|L7OK"} or {@code "DOWN 1/2|L7STS"}. */
    private static String state(int statsPort, String server) throws IOException {
        List<String> lines = RawHttp.get(statsPort, "/haproxy-stats;csv").body().lines().toList();
        List<String> header = Arrays.asList(lines.getFirst().replaceFirst("^# ", "").split(","));
        int status = header.indexOf("status");
        int check = header.indexOf("check_status");
        for (String line : lines) {
            String[] f = line.split(",", -1);
            if (f.length > check && f[0].equals("hosts") && f[1].equals(server)) {
                return f[status] + "|" + f[check];
            }
        }
        throw new IllegalStateException("no " + server + " in " + lines);
    }

    /** The haproxy binary on the PATH; skips the test without one, except under CI=true. */
    static Path haproxy() {
        Optional<Path> found = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(dir -> Path.of(dir, "haproxy")).filter(Files::isExecutable).findFirst();
        if (found.isEmpty() && "true".equals(System.getenv("CI"))) {
            throw new IllegalStateException("haproxy is not on the PATH (CI=true: the balancer tests must run)");
        }
        Assumptions.assumeTrue(found.isPresent(), "haproxy is not on the PATH: skipping the balancer tests");
        return found.orElseThrow();
    }
}
