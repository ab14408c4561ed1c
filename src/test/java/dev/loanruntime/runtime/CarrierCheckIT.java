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
import static org.hamcrest.Matchers.is;


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
