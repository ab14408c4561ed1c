package dev.loanruntime;

import io.helidon.config.Config;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.loanruntime.runtime.ThreadModel;
import dev.loanruntime.serve.LoanServer;
import dev.loanruntime.serve.ServeOptions;
import dev.loanruntime.testing.Http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every route's contract: status, content type, JSON shape and errors. Run once per thread model. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RouteContract {
    private static final String JSON = "application/json; charset=utf-8";
    private LoanServer server;
    private Http http;

    abstract ThreadModel threadModel();

    @BeforeAll
    void startServer() {
        ServeOptions options = ServeOptions.defaults().toBuilder().port(0).threads(threadModel()).platformThreads(8)
                .cryptoThreads(2).cryptoQueue(4).build();
        server = LoanServer.start(options, Config.create());
        http = new Http("http://127.0.0.1:" + server.port());
    }

    @AfterAll
    void stopServer() {
        server.close();
    }

    @Test
    void booksAnswersTheCatalogLine() {
        Http.Response r = http.get("/books");
        assertEquals(200, r.status());
        assertEquals(JSON, r.header("content-type"));
        assertEquals("{\"books\":[{\"isbn\":\"978-0262033848\",\"title\":\"Introduction to Algorithms\",\"shelf\":\"R-12\"}]}",
                r.body());
        assertEquals(String.valueOf(r.body().length()), r.header("content-length"), "sized, not chunked");
    }

    @Test
    void loanIncrementsTheProcessCounterAndStatusOnlyReadsIt() {
        long before = http.get("/status").json().get("loanCounter").asLong();
        JsonNode loan = http.get("/loan").json();
        assertEquals(ProcessHandle.current().pid(), loan.get("pid").asLong());
        assertEquals(before + 1, loan.get("loanCounter").asLong());
        Http.Response status = http.get("/status");
        assertEquals(JSON, status.header("content-type"));
        assertEquals(before + 1, status.json().get("loanCounter").asLong());
        assertEquals(before + 1, http.get("/status").json().get("loanCounter").asLong());
    }

    @Test
    void catalogLookupWaitsTheAskedTime() {
        long start = System.nanoTime();
        Http.Response r = http.get("/catalog/lookup?ms=30");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(200, r.status());
        assertEquals(JSON, r.header("content-type"));
        assertEquals(30, r.json().get("waitedMs").asInt());
        assertTrue(tookMs >= 30, "answered after " + tookMs + " ms");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "?ms=", "?ms=abc", "?ms=-1", "?ms=10001", "?ms=1.5", "?ms=99999999999"})
    void catalogLookupRejectsABadWaitNamingIt(String query) {
        Http.Response r = http.get("/catalog/lookup" + query);
        assertEquals(400, r.status());
        assertEquals(JSON, r.header("content-type"));
        assertEquals("bad_query", r.json().get("error").asText());
        assertTrue(r.json().get("message").asText().contains("'ms'"), r.body());
    }

    @Test
    void runtimeReportsTheEffectiveModel() {
        JsonNode r = http.get("/runtime").json();
        assertEquals(threadModel().label(), r.get("threadModel").asText());
        assertEquals(ProcessHandle.current().pid(), r.get("pid").asLong());
        assertEquals(Runtime.getRuntime().availableProcessors(), r.get("cores").asInt());
        assertTrue(r.get("carriers").asInt() >= 1);
        assertEquals(2, r.get("cryptoThreads").asInt());
        assertEquals(4, r.get("cryptoQueue").asInt());
        assertEquals(threadModel() == ThreadModel.PLATFORM ? 8 : 0, r.get("platformThreads").asInt());
        assertEquals(Runtime.version().toString(), r.get("javaVersion").asText());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/member/verify-blocking", "/member/verify-pooled"})
    void verifyRoutesDeriveTheLessonDigest(String path) {
        Http.Response r = http.get(path);
        assertEquals(200, r.status());
        assertEquals(JSON, r.header("content-type"));
        assertEquals("e47706c394e329b2", r.json().get("digest").asText());
        assertEquals(path, r.json().get("path").asText());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/nope", "/books/1", "/member", "/member/verify"})
    void unknownPathIs404Json(String path) {
        Http.Response r = http.get(path);
        assertEquals(404, r.status());
        assertEquals(JSON, r.header("content-type"));
        assertEquals("route_not_found", r.json().get("error").asText());
    }

    @ParameterizedTest
    @CsvSource({"POST,/books", "DELETE,/loan", "PUT,/status", "POST,/member/verify-pooled", "PATCH,/runtime",
            "POST,/catalog/lookup?ms=1"})
    void wrongMethodIs405WithAllow(String method, String path) {
        Http.Response r = http.send(method, path);
        assertEquals(405, r.status());
        assertEquals("GET", r.header("allow"));
        assertEquals(JSON, r.header("content-type"));
        assertEquals("method_not_allowed", r.json().get("error").asText());
    }

    @Test
    void observeReportsHealthAndTheServiceGauges() {
        Http.Response health = http.get("/observe/health");
        assertEquals(200, health.status());
        assertEquals("UP", health.json().get("status").asText());
        String metrics = http.get("/observe/metrics").body();
        for (String gauge : new String[] {"loan_crypto_running", "loan_crypto_queued", "loan_counter"}) {
            assertTrue(metrics.contains(gauge), gauge + " missing from metrics");
        }
    }
}
