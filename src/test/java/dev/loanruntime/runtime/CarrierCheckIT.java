package dev.loanruntime.runtime;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;


class CarrierCheckIT {

    /**
     * One carrier, and three: more than the cores of a 2-CPU machine and than the default of a 1-CPU runner, so
     * that the setting is seen to act whatever the default on the machine that runs the test.
     */
    @ParameterizedTest(name = "--carriers {0}")
    @ValueSource(ints = {1, 3})
    void theCarriersAskedForAreTheCarriersObserved(int carriers) throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--carriers", Integer.toString(carriers))) {
            assertThat(server.output(), server.output().contains(" carriers=" + carriers + " "));
            JsonNode runtime = new Http(server.baseUri()).get("/runtime").json();
            assertThat(runtime.toString(), runtime.get("carriers").asInt(), is(carriers));
        }
    }

    @Test
    void theServingLineNamesThePoolUnderPlatformThreadsAndTheProtections() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--threads", "platform", "--platform-threads", "7",
                "--limit", "fixed:4", "--shed-delay", "50ms")) {
            String serving = server.output().lines().filter(l -> l.contains(" serving ")).findFirst().orElse("");
            assertThat(serving, serving.contains(" threads=platform platform-threads=7 "));
            assertThat("carriers run no handler here", serving, not(containsString(" carriers=")));
            assertThat(serving, serving.contains(" limit=fixed:4:0 shed-delay=50ms "));
        }
        try (ServerProcess server = ServerProcess.serve(List.of(), "--carriers", "1")) {
            assertThat(server.output(), server.output().contains(" limit=none shed-delay=off "));
        }
    }

    @Test
    void settingThatCannotTakeEffectRefusesToStart() throws Exception {
        // The launcher creates a virtual thread before serve runs, so the scheduler already has 3 carriers.
        try (ServerProcess server = ServerProcess.start(
                List.of("-Djdk.virtualThreadScheduler.parallelism=3"),
                EarlyVirtualThreadLauncher.class.getName(), List.of("serve", "--port", "0", "--carriers", "1"))) {
            assertThat(server.awaitExit(Duration.ofSeconds(60)), is(1));
            assertThat(server.output(), server.output().contains("--carriers 1 did not take effect"));
            assertThat(server.output(), server.output().contains("3 carriers"));
        }
    }
}
