package dev.loanruntime.serve;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * {@code serve --stages on --log-slow-requests 100ms}: a request over the threshold gets one log line with its
 * method, path, status and stages in order; a quick one gets none.
 */
@Timeout(90)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class SlowRequestLogIT {
    @Test
    void aRequestOverTheThresholdIsLoggedWithItsStagesAndAQuickOneIsNot() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--stages", "on", "--log-slow-requests", "100ms")) {
            Http http = new Http(server.baseUri());
            for (int i = 0; i < 20; i++) {
                assertThat(http.get("/books").status(), is(200));
            }
            assertThat(http.get("/catalog/lookup?ms=300").status(), is(200));
            await("server.output().contains(\"slow request: GET\")").atMost(Duration.ofSeconds(10))
                    .until(() -> server.output().contains("slow request: GET"));

            String line = server.output().lines().filter(l -> l.contains("slow request:")).findFirst().orElseThrow();
            assertThat(line, containsString("slow request: GET /catalog/lookup 200 "));
            // the stages in their order, the 300 ms in the handler, and the server's total
            assertThat(line.indexOf("admit;dur="), is(not(-1)));
            assertThat(line, line.indexOf("admit;dur=") < line.indexOf("handler;dur=")
                    && line.indexOf("handler;dur=") < line.indexOf("total;dur="), is(true));
            double handlerMs = Double.parseDouble(line.replaceAll(".*handler;dur=([0-9.]+).*", "$1"));
            assertThat(line, handlerMs >= 300, is(true));
            assertThat(server.output(), server.output().contains("slow request: GET /books"), is(false));
            assertThat(server.output().lines().filter(l -> l.contains("slow request:")).count(), is(1L));
        }
    }
}
