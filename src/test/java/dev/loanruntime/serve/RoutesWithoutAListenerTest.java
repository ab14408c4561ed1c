package dev.loanruntime.serve;

import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webclient.http1.Http1ClientResponse;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.testing.junit5.DirectClient;
import io.helidon.webserver.testing.junit5.RoutingTest;
import io.helidon.webserver.testing.junit5.SetUpRoute;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.loanruntime.runtime.Carriers;
import dev.loanruntime.testing.DirectHttp;
import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.Locks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

/**
 * The routes on a routing of the test's own, with no listener and no socket: Helidon's DirectClient calls the
 * routing in this JVM. What a route answers, its error bodies included, is tested here; what depends on the thread model or on the process
 * (carriers, platform threads, signals, the cluster) is tested against servers in child JVMs (the *IT classes).
 */
@RoutingTest
@ResourceLock(Locks.GLOBAL_METER_REGISTRY)
class RoutesWithoutAListenerTest {
    private static LoanApp app;
    private static final String JSON = "application/json; charset=utf-8";
    private final DirectClient client;
    private final DirectHttp http;

    RoutesWithoutAListenerTest(DirectClient client) {
        this.client = client;
        this.http = new DirectHttp(client);
    }

    @SetUpRoute
    static void routing(HttpRouting.Builder routing) {
        ServeOptions options = ServeOptions.parse("--crypto-threads", "1", "--crypto-queue", "4",
                "--member-cost", "1024,8,1", "--carrier-delay", "off");
        app = new LoanApp(options, new Carriers.Observation(options.execution().carriers(), "not checked: no listener"),
                options.crypto().scrypt().open().hasher());
        app.routing(routing, null);
    }

    @AfterAll
    static void close() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void booksAnswersTheCatalogLine() {
        try (Http1ClientResponse r = client.get("/books").request()) {
            assertThat(r.status(), is(Status.OK_200));
            assertThat(r.entity().as(String.class), containsString("\"isbn\":\"978-0262033848\""));
        }
    }

    @Test
    void anUnknownPathIsA404WithAJsonBody() {
        try (Http1ClientResponse r = client.get("/nope").request()) {
            assertThat(r.status(), is(Status.NOT_FOUND_404));
            assertThat(r.entity().as(String.class), containsString("\"error\":\"route_not_found\""));
        }
    }

    @Test
    void headOfLoanTakesNoLoanAndGetTakesOne() {
        long before = loans();
        try (Http1ClientResponse head = client.method(Method.HEAD).path("/loan").request()) {
            assertThat(head.status(), is(Status.OK_200));
        }
        assertThat("HEAD changes nothing", loans(), is(before));
        try (Http1ClientResponse get = client.get("/loan").request()) {
            assertThat(get.status(), is(Status.OK_200));
        }
        assertThat(loans(), is(before + 1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "?ms=", "?ms=abc", "?ms=-1", "?ms=10001", "?ms=1.5", "?ms=99999999999"})
    void catalogLookupRejectsABadWaitNamingIt(String query) {
        Http.Response r = http.get("/catalog/lookup" + query);
        assertThat(r.status(), is(400));
        assertThat(r.header("content-type"), is(JSON));
        assertThat(r.json().get("error").asText(), is("bad_query"));
        assertThat(r.body(), r.json().get("message").asText().contains("'ms'"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/nope", "/books/1", "/member", "/member/verify"})
    void unknownPathIs404Json(String path) {
        Http.Response r = http.get(path);
        assertThat(r.status(), is(404));
        assertThat(r.header("content-type"), is(JSON));
        assertThat(r.json().get("error").asText(), is("route_not_found"));
    }

    @ParameterizedTest
    @CsvSource({"POST,/books", "DELETE,/loan", "PUT,/status", "POST,/member/verify-pooled", "PATCH,/runtime",
            "POST,/catalog/lookup?ms=1"})
    void wrongMethodIs405WithAllow(String method, String path) {
        Http.Response r = http.send(method, path);
        assertThat(r.status(), is(405));
        assertThat(r.header("allow"), is("GET, HEAD"));
        assertThat(r.header("content-type"), is(JSON));
        assertThat(r.json().get("error").asText(), is("method_not_allowed"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "''                          | ",
            "Bearer                      | ",
            "Basic YWRhOnBhc3N3b3Jk      | ",
            "Bearer not-a-token-we-made  | "})
    void sessionWithoutAKnownTokenIsUnknown(String authorization) {
        Http.Response session = authorization.isEmpty()
                ? http.get("/member/session")
                : http.get("/member/session", "Authorization", authorization);
        assertThat(session.status(), is(401));
        assertThat(session.text("error"), is("unknown_session"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{                               | bad_json      | JSON",
            "[\"ada\", \"password\"]         | bad_json      | member",
            "{\"password\": \"password\"}    | missing_field | 'member'",
            "{\"member\": \"ada\"}           | missing_field | 'password'",
            "{\"member\": 7, \"password\": \"p\"} | bad_field | 'member'",
            "{\"member\": \"ada\", \"password\": \"\"} | bad_field | 'password'"})
    void malformedLoginIs400NamingTheProblem(String body, String code, String named) {
        Http.Response answer = http.post("/member/login", body);
        assertThat(answer.status(), is(400));
        assertThat(answer.text("error"), is(code));
        assertThat(answer.text("message"), containsString(named));
    }

    @Test
    void oversizedLoginBodyIsRefused() {
        String body = "{\"member\": \"ada\", \"password\": \"" + "x".repeat(5000) + "\"}";
        assertThat(http.post("/member/login", body).status(), is(413));
    }

    @Test
    void loginAnswersOnlyPost() {
        Http.Response answer = http.get("/member/login");
        assertThat(answer.status(), is(405));
    }

    private long loans() {
        String status = client.get("/status").requestEntity(String.class);
        return Long.parseLong(status.replaceAll(".*\"loanCounter\":(\\d+).*", "$1"));
    }
}
