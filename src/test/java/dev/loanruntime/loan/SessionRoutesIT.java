package dev.loanruntime.loan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.helidon.config.Config;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.serve.LoanServer;
import dev.loanruntime.serve.ServeOptions;
import dev.loanruntime.testing.Http;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;

/**
 * The member routes on one in-process server with a local store. Its sessions outlive the tests, so that a session
 * that ends does so because of what a test did; the time-to-live has a server of its own.
 */
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class SessionRoutesIT {
    private static final ScryptCost CHEAP = ScryptCost.parse("1024,8,1");
    private static LoanServer server;
    private static Http http;
    private static String base;

    @BeforeAll
    static void start() {
        server = LoanServer.start(options(CHEAP, Duration.ofMinutes(30)), Config.create());
        base = "http://127.0.0.1:" + server.port();
        http = new Http();
    }

    @AfterAll
    static void stop() {
        http.close();
        server.close();
    }

    static ServeOptions options(ScryptCost memberCost, Duration ttl) {
        return ServeOptions.parse("--port", "0", "--crypto-threads", "4", "--member-cost", memberCost.label(),
                "--session-ttl", Long.toString(ttl.toSeconds()));
    }

    @Test
    void loginReturnsAUrlSafeTokenOfAtLeast128RandomBits() {
        Http.Response first = login("ada", "password");
        Http.Response second = login("ada", "password");
        assertThat(first.status(), is(200));
        assertThat(first.text("token").matches("[A-Za-z0-9_-]{43,}"), is(true));
        assertThat(second.text("token"), not(is(first.text("token"))));
    }

    @Test
    void sessionNamesTheMemberAndTheProcess() {
        String bearer = "Bearer " + login("ben", "library-card").text("token");
        Http.Response session = http.get(base + "/member/session", "Authorization", bearer);
        assertThat(session.status(), is(200));
        assertThat(session.text("member"), is("ben"));
        assertThat(session.number("pid"), is(ProcessHandle.current().pid()));
    }

    @Test
    void logoutEndsTheSession() {
        String bearer = "Bearer " + login("cleo", "overdue-books").text("token");
        assertThat(http.get(base + "/member/session", "Authorization", bearer).status(), is(200));
        assertThat(http.post(base + "/member/logout", "", "Authorization", bearer).status(), is(204));
        Http.Response after = http.get(base + "/member/session", "Authorization", bearer);
        assertThat(after.status(), is(401));
        assertThat(after.text("error"), is("unknown_session"));
    }

    @Test
    void sessionEndsAfterItsTimeToLive() {
        try (LoanServer shortLived = LoanServer.start(options(CHEAP, Duration.ofSeconds(2)), Config.create())) {
            String session = "http://127.0.0.1:" + shortLived.port() + "/member/session";
            Http.Response login = http.post("http://127.0.0.1:" + shortLived.port() + "/member/login",
                    Http.credentials("ada", "password"));
            assertThat(login.number("expiresInSeconds"), is(2L));
            String bearer = "Bearer " + login.text("token");
            assertThat(http.get(session, "Authorization", bearer).status(), is(200));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> http.get(session, "Authorization", bearer).status() == 401);
        }
    }

    @Test
    void wrongPasswordAndUnknownMemberGetTheSameAnswer() {
        Http.Response wrongPassword = login("ada", "Password");
        Http.Response unknownMember = login("zoe", "password");
        assertThat(wrongPassword.status(), is(401));
        assertThat(unknownMember.status(), is(401));
        assertThat(wrongPassword.json(), is(unknownMember.json()));
        assertThat(wrongPassword.text("error"), is("invalid_credentials"));
    }

    @Test
    void unknownMemberCostsAboutAsMuchTimeAsAWrongPassword() {
        // A cost whose derivation clearly dominates a request (32 MiB): skipping it would show at once.
        try (LoanServer costly = LoanServer.start(options(ScryptCost.parse("32768,8,1"), Duration.ofMinutes(1)),
                Config.create())) {
            String uri = "http://127.0.0.1:" + costly.port() + "/member/login";
            List<Long> known = new ArrayList<>();
            List<Long> unknown = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                known.add(http.post(uri, Http.credentials("ada", "wrong-" + i)).took().toNanos());
                unknown.add(http.post(uri, Http.credentials("nobody-" + i, "wrong-" + i)).took().toNanos());
            }
            double ratio = (double) median(unknown) / median(known);
            assertThat("unknown/known median time ratio " + ratio, ratio, allOf(greaterThan(0.4), lessThan(2.5)));
        }
    }

    @Test
    void adaLogsInAtTheLessonsCostWithTheStoredHash() {
        try (LoanServer lesson = LoanServer.start(options(ScryptCost.LESSON, Duration.ofMinutes(1)), Config.create())) {
            String uri = "http://127.0.0.1:" + lesson.port() + "/member/login";
            assertThat(http.post(uri, Http.credentials("ada", "password")).status(), is(200));
        }
    }

    private static Http.Response login(String member, String password) {
        return http.post(base + "/member/login", Http.credentials(member, password));
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
