package dev.loanruntime.store;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.RedisProcess;
import dev.loanruntime.testing.ServerProcess;
import dev.loanruntime.testing.TestRedis;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

/**
 * A server on a Redis that is killed and started again: the routes that need the store answer 503 promptly, the
 * others keep working, health says the store is down, and service resumes by itself. The test owns the
 * redis-server (persistent: it syncs every write before answering, so what was acknowledged survives the kill).
 */
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class RedisOutageIT {
    /** "About one second", with room for a loaded machine. */
    private static final Duration PROMPT = Duration.ofSeconds(2);
    @TempDir
    Path dir;
    private final Http http = new Http();
    private RedisProcess redis;
    private ServerProcess server;
    private String base;

    /** A persistent redis-server of the test's own, and a server whose store it is. */
    @BeforeEach
    void start() throws IOException {
        TestRedis.assumeRedisServerInstalled();
        redis = RedisProcess.persistent(dir);
        server = ServerProcess.serve(List.of("-Xmx256m"), "--store", redis.uri(0).toString(),
                "--member-cost", StateAcrossProcessesContract.CHEAP_MEMBER_COST);
        base = server.baseUri();
    }

    @AfterEach
    void stop() {
        http.close();
        if (server != null) {
            server.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void storeRoutesAnswer503WhileRedisIsDownAndResumeWhenItReturns() throws Exception {
        long answered = 0;
        for (int i = 0; i < 20; i++) {
            assertThat(http.get(base + "/loan").status(), is(200));
            answered++;
        }
        String bearer = "Bearer " + http.post(base + "/member/login", Http.credentials("ada", "password")).text("token");
        assertThat(storeCheck(http, base).path("status").asText(), is("UP"));

        redis.kill();
        Http.Response loan = http.get(base + "/loan");
        assertThat(loan.status(), is(503));
        assertThat(loan.text("error"), is("store_unavailable"));
        assertThat(loan.took(), lessThan(PROMPT));
        assertThat(loan.header("retry-after"), is("1"));
        assertThat(http.get(base + "/status").status(), is(503));
        // every route that needs the store, the member routes too: a login checks the password, then cannot
        // keep the session; a logout cannot end one
        List<Http.Response> members = List.of(
                http.get(base + "/member/session", "Authorization", bearer),
                http.post(base + "/member/login", Http.credentials("ben", "library-card")),
                http.post(base + "/member/logout", "", "Authorization", bearer));
        for (Http.Response refused : members) {
            assertThat(refused.body(), refused.status(), is(503));
            assertThat(refused.text("error"), is("store_unavailable"));
            assertThat(refused.header("retry-after"), is("1"));
            assertThat(refused.took(), lessThan(PROMPT.plusSeconds(1)));   // a login derives first
        }
        assertThat(http.get(base + "/books").status(), is(200));
        assertThat(http.get(base + "/observe/health").status(), is(503));
        assertThat(storeCheck(http, base).path("status").asText(), is("DOWN"));

        redis.restart();
        AtomicLong afterRestart = new AtomicLong();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            boolean ok = http.get(base + "/loan").status() == 200;
            if (ok) {
                afterRestart.incrementAndGet();
            }
            return ok;
        });
        answered += afterRestart.get();
        assertThat(http.get(base + "/status").number("loanCounter"), is(answered));
        assertThat(http.get(base + "/member/session", "Authorization", bearer).text("member"), is("ada"));
        assertThat(storeCheck(http, base).path("status").asText(), is("UP"));
    }

    @Test
    void hungRedisIsReportedWithinTheTimeout() throws Exception {
        assertThat(http.get(base + "/loan").status(), is(200));
        redis.freeze();
        try {
            // The connection is open but nothing answers: only the read timeout can end the wait.
            Http.Response loan = http.get(base + "/loan");
            assertThat(loan.status(), is(503));
            assertThat(loan.took(), lessThan(PROMPT));
            assertThat(http.get(base + "/books").status(), is(200));
        } finally {
            redis.thaw();
        }
        await("http.get(base + \"/status\").status() == 200").atMost(Duration.ofSeconds(10))
                .until(() -> http.get(base + "/status").status() == 200);
    }

    @Test
    void noIncrementAnswered200IsLostWhenRedisDiesUnderLoad() throws Exception {
        String loanUri = base + "/loan";
        AtomicLong ok = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        List<String> unexpected = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < 8; c++) {
                clients.submit(() -> {
                    while (running.get()) {
                        Http.Response loan = http.get(loanUri);
                        if (loan.status() == 200) {
                            ok.incrementAndGet();
                        } else if (loan.status() == 503 && loan.text("error").equals("store_unavailable")) {
                            refused.incrementAndGet();
                        } else {
                            synchronized (unexpected) {
                                unexpected.add(loan.status() + " " + loan.json());
                            }
                        }
                    }
                    return null;
                });
            }
            await("ok.get() >= 300").atMost(Duration.ofSeconds(30)).until(() -> ok.get() >= 300);
            redis.kill();
            await("refused.get() >= 50").atMost(Duration.ofSeconds(30)).until(() -> refused.get() >= 50);
            long beforeRestart = ok.get();
            redis.restart();
            await("ok.get() >= beforeRestart + 300").atMost(Duration.ofSeconds(30))
                    .until(() -> ok.get() >= beforeRestart + 300);
            running.set(false);
        }
        long counted = http.get(server.baseUri() + "/status").number("loanCounter");
        System.out.printf("redis outage under load: answered 200=%d, refused 503=%d, counted=%d%n",
                ok.get(), refused.get(), counted);
        assertThat(unexpected, is(List.of()));
        // Every 200 was counted; anything more can only be a refused request whose INCR reached Redis
        // before its reply was lost (counted once, never twice).
        assertThat(counted, greaterThanOrEqualTo(ok.get()));
        assertThat(counted, lessThanOrEqualTo(ok.get() + refused.get()));
    }

    private static JsonNode storeCheck(Http http, String base) {
        for (JsonNode check : http.get(base + "/observe/health").json().path("checks")) {
            if (check.path("name").asText().equals("store")) {
                return check;
            }
        }
        throw new AssertionError("no store check in /observe/health");
    }
}
