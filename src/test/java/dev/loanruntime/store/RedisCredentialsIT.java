package dev.loanruntime.store;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.loanruntime.testing.ClusterProcess;
import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.Ports;
import dev.loanruntime.testing.RedisProcess;
import dev.loanruntime.testing.ServerProcess;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * A Redis with {@code requirepass}: the password reaches the server from the environment or the URI, and from
 * nowhere else can anyone read it: not the start-up line, /runtime, the health check, nor a cluster worker's
 * command line. A wrong or missing password stops the start with the store's address; {@code rediss://} speaks TLS.
 */
class RedisCredentialsIT {
    private static final String PASSWORD = "pw-" + UUID.randomUUID();
    @TempDir
    Path dir;

    @Test
    void thePasswordFromTheEnvironmentLogsInAndIsShownNowhere() throws Exception {
        try (RedisProcess redis = RedisProcess.server(dir, PASSWORD);
             ServerProcess server = serve(Map.of(StoreAuth.PASSWORD_ENV, PASSWORD), "redis://127.0.0.1:" + redis.port());
             Http http = new Http()) {
            String base = server.baseUri();
            assertThat(http.get(base + "/loan").number("loanCounter"), is(1L));
            assertThat(redis.call("GET", "loan-runtime:loans"), is("1"));
            assertThat(server.output(), containsString("store=redis://127.0.0.1:" + redis.port() + "/0"));
            assertShownNowhere(server, http, base);
        }
    }

    @Test
    void aPasswordInTheUriIsLeftOutOfEverythingPrinted() throws Exception {
        try (RedisProcess redis = RedisProcess.server(dir, PASSWORD);
             ServerProcess server = serve(Map.of(), "redis://default:" + PASSWORD + "@127.0.0.1:" + redis.port() + "/1");
             Http http = new Http()) {
            String base = server.baseUri();
            assertThat(http.get(base + "/loan").status(), is(200));
            assertThat(server.output(), containsString("store=redis://default@127.0.0.1:" + redis.port() + "/1"));
            assertShownNowhere(server, http, base);
        }
    }

    @Test
    void aWrongOrMissingPasswordStopsTheStartNamingTheStore() throws Exception {
        try (RedisProcess redis = RedisProcess.server(dir, PASSWORD)) {
            String store = "redis://127.0.0.1:" + redis.port() + "/0";
            for (Map<String, String> env : List.of(Map.of(StoreAuth.PASSWORD_ENV, "not-" + PASSWORD), Map.<String, String>of())) {
                try (ServerProcess server = ServerProcess.start(env, List.of("-Xmx128m"), "dev.loanruntime.Main",
                        List.of("serve", "--port", "0", "--store", store))) {
                    assertThat(server.awaitExit(Duration.ofSeconds(60)), is(1));
                    String output = server.output();
                    assertThat(output, allOf(containsString("store " + store + " refused to log in"),
                            containsString(env.isEmpty() ? "NOAUTH" : "WRONGPASS"),
                            containsString(StoreAuth.PASSWORD_ENV), not(containsString(PASSWORD))));
                    assertThat(output, output.lines().filter(l -> l.contains("refused to log in")).toList(), hasSize(1));
                }
            }
        }
    }

    @Test
    void clusterWorkersGetThePasswordThroughTheirEnvironmentNotTheirCommandLine() throws Exception {
        try (RedisProcess redis = RedisProcess.server(dir, PASSWORD);
             ClusterProcess cluster = ClusterProcess.ready(2,
                     "--store", "redis://:" + PASSWORD + "@127.0.0.1:" + redis.port(),
                     "--member-cost", StateAcrossProcessesContract.CHEAP_MEMBER_COST);
             Http http = new Http()) {
            List<Long> workers = new ArrayList<>(cluster.workerPids());
            assertThat(workers, hasSize(2));
            for (long pid : workers) {
                String argv = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
                argv = argv.substring(argv.indexOf(" serve ")); // the options, without the long class path
                assertThat(argv, allOf(containsString("--store redis://127.0.0.1:" + redis.port() + "/0"),
                        not(containsString(PASSWORD))));
            }
            // every worker logged in: with only the command line to go by, none could
            for (int i = 1; i <= 20; i++) {
                assertThat(http.get("http://127.0.0.1:" + cluster.port() + "/loan").number("loanCounter"), is((long) i));
            }
            assertThat(cluster.output(), not(containsString(PASSWORD)));
        }
    }

    @Test
    void redissSpeaksTlsFromItsFirstByte() throws Exception {
        try (ServerSocket fake = new ServerSocket()) {
            fake.bind(new InetSocketAddress("127.0.0.1", 0));
            CompletableFuture<byte[]> hello = CompletableFuture.supplyAsync(() -> firstBytes(fake));
            try (ServerProcess server = serve(Map.of(), "rediss://127.0.0.1:" + fake.getLocalPort());
                 Http http = new Http()) {
                byte[] first = hello.get(60, TimeUnit.SECONDS);
                // a TLS record of type handshake (22), protocol major version 3: a ClientHello, not a RESP command
                assertThat(first[0], is((byte) 22));
                assertThat(first[1], is((byte) 3));
                assertThat(server.output(), containsString("store=rediss://127.0.0.1:" + fake.getLocalPort() + "/0"));
                assertThat(http.get(server.baseUri() + "/loan").status(), is(503));
            }
        }
    }

    @Test
    void redissLogsInOverTlsToAServerWhoseCertificateTheJvmTrusts() throws Exception {
        Path cert = dir.resolve("redis.crt");
        Path key = dir.resolve("redis.key");
        run(RedisProcess.require("openssl").toString(), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                "-keyout", key.toString(), "-out", cert.toString());
        Path trust = dir.resolve("trust.p12");
        run(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-importcert", "-noprompt",
                "-alias", "redis", "-file", cert.toString(), "-keystore", trust.toString(), "-storetype", "PKCS12",
                "-storepass", "changeit");
        int tlsPort = Ports.freeOutsideEphemeralRange();
        try (RedisProcess redis = RedisProcess.server(dir, PASSWORD, "--tls-port", Integer.toString(tlsPort),
                "--tls-cert-file", cert.toString(), "--tls-key-file", key.toString(),
                "--tls-ca-cert-file", cert.toString(), "--tls-auth-clients", "no");
             ServerProcess trusting = ServerProcess.startListening(Map.of(StoreAuth.PASSWORD_ENV, PASSWORD),
                     List.of("-Xmx256m", "-Djavax.net.ssl.trustStore=" + trust, "-Djavax.net.ssl.trustStorePassword=changeit"),
                     "dev.loanruntime.Main", List.of("serve", "--port", "0", "--store", "rediss://127.0.0.1:" + tlsPort));
             ServerProcess doubting = serve(Map.of(StoreAuth.PASSWORD_ENV, PASSWORD), "rediss://127.0.0.1:" + tlsPort);
             Http http = new Http()) {
            // the server knows only the TLS port: a loan counted there went over TLS
            assertThat(http.get(trusting.baseUri() + "/loan").number("loanCounter"), is(1L));
            assertThat(redis.call("GET", "loan-runtime:loans"), is("1"));
            // the same server without the certificate in its trust store refuses the connection
            assertThat(http.get(doubting.baseUri() + "/loan").status(), is(503));
            assertThat(redis.call("GET", "loan-runtime:loans"), is("1"));
        }
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(String.join(" ", command) + "\n" + output, process.waitFor(), is(0));
    }

    private static byte[] firstBytes(ServerSocket fake) {
        try (Socket client = fake.accept()) {
            client.setSoTimeout(10_000);
            InputStream in = client.getInputStream();
            return in.readNBytes(2);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ServerProcess serve(Map<String, String> env, String store) throws IOException {
        return ServerProcess.startListening(env, List.of("-Xmx256m"), "dev.loanruntime.Main",
                List.of("serve", "--port", "0", "--store", store,
                        "--member-cost", StateAcrossProcessesContract.CHEAP_MEMBER_COST));
    }

    private static void assertShownNowhere(ServerProcess server, Http http, String base) {
        assertThat(server.output(), not(containsString(PASSWORD)));
        assertThat(http.get(base + "/runtime").body(), not(containsString(PASSWORD)));
        Http.Response health = http.get(base + "/observe/health");
        assertThat(health.body(), allOf(containsString("\"store\""), not(containsString(PASSWORD))));
    }
}
