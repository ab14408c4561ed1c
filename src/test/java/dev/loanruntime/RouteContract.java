package dev.loanruntime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.helidon.config.Config;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.parallel.ResourceLock;

import com.fasterxml.jackson.databind.JsonNode;

import dev.loanruntime.serve.LoanServer;
import dev.loanruntime.serve.ServeOptions;
import dev.loanruntime.settings.ThreadModel;
import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.Locks;
import dev.loanruntime.testing.RawHttp;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.is;

/** Every route's contract: status, content type, JSON shape and errors. Run once per thread model. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ResourceLock(Locks.GLOBAL_METER_REGISTRY)
abstract class RouteContract {
    private static final String JSON = "application/json; charset=utf-8";
    private LoanServer server;
    private Http http;

    abstract ThreadModel threadModel();

    @BeforeAll
    void startServer() {
        ServeOptions options = ServeOptions.parse("--port", "0", "--threads", threadModel().label(),
                "--platform-threads", "8", "--crypto-threads", "2", "--crypto-queue", "4");
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
        assertThat(r.status(), is(200));
        assertThat(r.header("content-type"), is(JSON));
        assertThat(r.body(), is("{\"books\":[{\"isbn\":\"978-0262033848\",\"title\":\"Introduction to Algorithms\",\"shelf\":\"R-12\"}]}"));
        assertThat("sized, not chunked", r.header("content-length"), is(String.valueOf(r.body().length())));
    }

    /**
     * Every answer of a few thousand, from several clients at once, is a 200: a route that fails once in a thousand
     * requests, or only while another request is in flight, fails this test and not by chance.
     */
    @Test
    void everyOneOfThousandsOfConcurrentBooksRequestsIs200() throws InterruptedException {
        int clients = 8;
        int each = 500;
        Map<String, Integer> answers = new ConcurrentHashMap<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        String answer;
                        try {
                            answer = Integer.toString(http.get("/books").status());
                        } catch (RuntimeException e) {
                            answer = e.toString();
                        }
                        answers.merge(answer, 1, Integer::sum);
                    }
                });
            }
        }
        assertThat("answers of " + clients * each + " GET /books", answers, is(Map.of("200", clients * each)));
    }

    @Test
    void headOfLoanTakesNoLoan() throws IOException {
        long before = http.get("/status").json().get("loanCounter").asLong();
        RawHttp.Response head = RawHttp.head(server.port(), "/loan");
        assertThat(head.status(), is(200));
        assertThat(head.header("content-type"), is(JSON));
        assertThat("HEAD changes nothing (RFC 9110, 9.2.1)", http.get("/status").json().get("loanCounter").asLong(),
                is(before));
    }

    @Test
    void loanIncrementsTheProcessCounterAndStatusOnlyReadsIt() {
        long before = http.get("/status").json().get("loanCounter").asLong();
        JsonNode loan = http.get("/loan").json();
        assertThat(loan.get("pid").asLong(), is(ProcessHandle.current().pid()));
        assertThat(loan.get("loanCounter").asLong(), is(before + 1));
        Http.Response status = http.get("/status");
        assertThat(status.header("content-type"), is(JSON));
        assertThat(status.json().get("loanCounter").asLong(), is(before + 1));
        assertThat(http.get("/status").json().get("loanCounter").asLong(), is(before + 1));
    }

    @Test
    void catalogLookupWaitsTheAskedTime() {
        long start = System.nanoTime();
        Http.Response r = http.get("/catalog/lookup?ms=30");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(r.status(), is(200));
        assertThat(r.header("content-type"), is(JSON));
        assertThat(r.json().get("waitedMs").asInt(), is(30));
        assertThat("answered after " + tookMs + " ms", tookMs >= 30);
    }

    @Test
    void runtimeReportsTheEffectiveModel() {
        JsonNode r = http.get("/runtime").json();
        assertThat(r.get("threadModel").asText(), is(threadModel().label()));
        assertThat(r.get("pid").asLong(), is(ProcessHandle.current().pid()));
        assertThat(r.get("cores").asInt(), is(Runtime.getRuntime().availableProcessors()));
        assertThat(r.get("carriers").asInt() >= 1, is(true));
        assertThat(r.get("cryptoThreads").asInt(), is(2));
        assertThat(r.get("cryptoQueue").asInt(), is(4));
        assertThat(r.get("platformThreads").asInt(), is(threadModel() == ThreadModel.PLATFORM ? 8 : 0));
        assertThat(r.get("javaVersion").asText(), is(Runtime.version().toString()));
        // the probe's thread is the model's kind of thread
        assertThat(r.path("carrierDelay").path("thread").asText(), is(threadModel().label()));
        assertThat(r.path("carrierDelay").path("resolutionMs").asDouble(), is(10.0));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/member/verify-blocking", "/member/verify-pooled"})
    void verifyRoutesDeriveTheLessonDigest(String path) {
        Http.Response r = http.get(path);
        assertThat(r.status(), is(200));
        assertThat(r.header("content-type"), is(JSON));
        assertThat(r.json().get("digest").asText(), is("e47706c394e329b2"));
        assertThat(r.json().get("path").asText(), is(path));
    }

    @Test
    void rootListsTheServiceAndEveryRoute() {
        Http.Response r = http.get("/");
        assertThat(r.status(), is(200));
        assertThat(r.header("content-type"), is(JSON));
        assertThat(r.json().get("service").asText(), is("loan-runtime"));
        List<String> routes = new ArrayList<>();
        for (JsonNode route : r.json().get("routes")) {
            assertThat(route.toString(), route.get("description").asText().isBlank(), is(false));
            routes.add(route.get("method").asText() + " " + route.get("path").asText());
        }
        assertThat(routes, containsInAnyOrder("GET /", "GET /books", "GET /loan", "GET /status",
                "GET /member/verify-blocking", "GET /member/verify-pooled", "POST /member/login", "GET /member/session",
                "POST /member/logout", "GET /catalog/lookup", "GET /runtime", "GET /observe/metrics",
                "GET /observe/health"));
        // the list is the server's own route list, in its order: the one the warm-up reads too
        assertThat(routes, is(server.routes().stream().map(route -> route.method() + " " + route.path()).toList()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/books", "/status", "/catalog/lookup?ms=1", "/catalog/lookup?ms=abc", "/member/session",
            "/observe/metrics?name=no.such.meter"})
    void headAnswersWithGetsStatusAndHeadersAndNoBody(String path) throws IOException {
        Http.Response get = http.get(path);
        RawHttp.Response head = RawHttp.head(server.port(), path);
        assertThat("body bytes in the answer to HEAD", head.body(), is(""));
        assertThat(head.status(), is(get.status()));
        assertThat(head.header("content-type"), is(get.header("content-type")));
        assertThat(head.header("content-length"), is(String.valueOf(get.body().getBytes(StandardCharsets.UTF_8).length)));
        assertThat(head.header("www-authenticate"), is(get.header("www-authenticate")));
    }

    @ParameterizedTest
    @CsvSource({"/runtime,200", "/observe/metrics,200", "/observe/health,204", "/nope,404", "/member/login,405",
            "/member/logout,405", "/bo%zzks,400"})
    void headNeverGetsABody(String path, int status) throws IOException {
        RawHttp.Response head = RawHttp.head(server.port(), path);
        assertThat(path, head.status(), is(status));
        assertThat("body bytes in the answer to HEAD " + path, head.body(), is(""));
        if (status == 405) {
            assertThat(head.header("allow"), is("POST"));
        }
    }

    @Test
    void observeReportsHealthAndTheServiceGauges() {
        Http.Response health = http.get("/observe/health");
        assertThat(health.status(), is(200));
        assertThat(health.json().get("status").asText(), is("UP"));
        String metrics = http.get("/observe/metrics").body();
        for (String gauge : new String[] {"loan_crypto_running", "loan_crypto_queued", "loan_counter",
                "loan_pinned_events", "loan_pinned_longest_ms", "loan_requests_total", "thread_count",
                "loan_carrier_delay_seconds{quantile=\"0.99\"", "loan_carrier_delay_samples",
                "loan_carrier_delay_late_now_seconds",
                "loan_crypto_queue_wait_seconds{quantile=\"0.99\"", "loan_vthread_scheduler_queued"}) {
            assertThat(gauge + " missing from metrics", metrics.contains(gauge));
        }
        // every family of the service says what it is, and a window's quantiles come in order
        List<String> mute = metrics.lines().filter(l -> l.startsWith("# HELP loan_"))
                .filter(l -> l.split(" ", 4).length < 4 || l.split(" ", 4)[3].isBlank()).toList();
        assertThat("metrics without a description", mute, is(List.of()));
        List<String> quantiles = metrics.lines().filter(l -> l.startsWith("loan_carrier_delay_seconds{"))
                .map(l -> l.replaceAll(".*quantile=\"([^\"]+)\".*", "$1")).toList();
        assertThat(quantiles, is(List.of("0.5", "0.99", "1")));
        Http.Response none = http.get("/observe/metrics?name=no.such.meter");
        assertThat(none.status(), is(404));
        assertThat(none.json().get("error").asText(), is("metric_not_found"));
    }

    @Test
    void everyHandledRequestIsCountedAndTheAskerIsInFlight() {
        assertThat(http.get("/runtime").json().get("requestsInFlight").asInt(), is(1));
        long before = requestsTotal();
        for (int i = 0; i < 5; i++) {
            assertThat(http.get("/books").status(), is(200));
        }
        // the five, plus the metrics request that reads the count after them
        assertThat(requestsTotal() - before, is(6L));
    }

    private long requestsTotal() {
        String line = http.get("/observe/metrics?name=loan.requests").body().lines()
                .filter(l -> l.startsWith("loan_requests_total")).findFirst().orElseThrow();
        return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }
}
