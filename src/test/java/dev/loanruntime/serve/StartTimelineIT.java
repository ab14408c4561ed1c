package dev.loanruntime.serve;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

/**
 * A server's start, step by step, as /runtime and the serving line tell it: a process of its own, since the steps
 * count from the process's beginning.
 */
class StartTimelineIT {
    private static final Pattern STARTED_IN = Pattern.compile("started-in=(\\d+)ms");

    @Test
    void runtimeListsTheStartsStepsInOrderAndTheServingLineItsLast() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of());
             Http http = new Http(server.baseUri())) {
            JsonNode start = http.get("/runtime").json().path("startMs");
            List<String> steps = new ArrayList<>();
            start.fieldNames().forEachRemaining(steps::add);
            // the metrics start once the listener is up, beside the serving line: either may come first
            steps.remove("metrics");
            assertThat(start.toString(), steps, contains("main", "options", "monitors", "store", "listening",
                    "serving"));
            long before = 0;
            for (String step : steps) {
                assertThat(step + " in " + start, start.path(step).asLong(), greaterThanOrEqualTo(before));
                before = start.path(step).asLong();
            }
            // the JVM's own start comes first: main cannot be reached at the process's first moment
            assertThat(start.toString(), start.path("main").asLong(), greaterThan(0L));

            Matcher line = STARTED_IN.matcher(server.output());
            assertThat(server.output(), line.find(), is(true));
            assertThat(start.toString(), Long.parseLong(line.group(1)), is(start.path("serving").asLong()));

            // a scrape waits for the metrics, which then appear among the steps
            assertThat(http.get("/observe/metrics").status(), is(200));
            List<String> after = new ArrayList<>();
            http.get("/runtime").json().path("startMs").fieldNames().forEachRemaining(after::add);
            assertThat(after, hasItem("metrics"));
            JsonNode later = http.get("/runtime").json().path("startMs");
            assertThat("the metrics started before the listener was up: " + later, later.path("metrics").asLong(),
                    greaterThanOrEqualTo(later.path("listening").asLong()));
        }
    }

    @Test
    void theProcessAgeAgreesWithTheJvmsUptime() {
        // this JVM's own steps: marked now, its age can be no less than the JVM's uptime (the JVM starts after exec)
        long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
        StartTimeline.mark("test-" + System.nanoTime());
        Map<String, Long> steps = StartTimeline.steps();
        long age = steps.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat("process age " + age + " ms, JVM uptime " + uptime + " ms", age + 20, greaterThanOrEqualTo(uptime));
        assertThat("process age " + age + " ms, JVM uptime " + uptime + " ms", age, lessThan(uptime + 1_000));
    }
}
