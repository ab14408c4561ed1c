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

import dev.loanruntime.runtime.Carriers;
import dev.loanruntime.testing.Locks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

/**
 * The routes on a routing of the test's own, with no listener and no socket: Helidon's DirectClient calls the
 * routing in this JVM. What a route answers is tested here; what depends on the thread model or on the process
 * (carriers, platform threads, signals, the cluster) is tested against servers in child JVMs (the *IT classes).
 */
@RoutingTest
@ResourceLock(Locks.GLOBAL_METER_REGISTRY)
class RoutesWithoutAListenerTest {
    private static LoanApp app;
    private final DirectClient client;

    RoutesWithoutAListenerTest(DirectClient client) {
        this.client = client;
    }

    @SetUpRoute
    static void routing(HttpRouting.Builder routing) {
        ServeOptions options = ServeOptions.parse("--crypto-threads", "1", "--crypto-queue", "4",
                "--member-cost", "1024,8,1", "--carrier-delay", "off");
        app = new LoanApp(options, new Carriers.Observation(options.carriers(), "not checked: no listener"),
                options.scrypt().open().hasher());
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

    private long loans() {
        String status = client.get("/status").requestEntity(String.class);
        return Long.parseLong(status.replaceAll(".*\"loanCounter\":(\\d+).*", "$1"));
    }
}
