package dev.loanruntime.runtime;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CarrierCheckTest {

    /**
     * One carrier, and three: more than the cores of a 2-CPU machine and than the default of a 1-CPU runner, so
     * that the setting is seen to act whatever the default on the machine that runs the test.
     */
    @ParameterizedTest(name = "--carriers {0}")
    @ValueSource(ints = {1, 3})
    void theCarriersAskedForAreTheCarriersObserved(int carriers) throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--carriers", Integer.toString(carriers))) {
            assertTrue(server.output().contains(" carriers=" + carriers + " "), server.output());
            JsonNode runtime = new Http(server.baseUri()).get("/runtime").json();
            assertEquals(carriers, runtime.get("carriers").asInt(), runtime.toString());
        }
    }

    @Test
    void settingThatCannotTakeEffectRefusesToStart() throws Exception {
        // The launcher creates a virtual thread before serve runs, so the scheduler already has 3 carriers.
        try (ServerProcess server = ServerProcess.start(
                List.of("-Djdk.virtualThreadScheduler.parallelism=3"),
                EarlyVirtualThreadLauncher.class.getName(), List.of("serve", "--port", "0", "--carriers", "1"))) {
            assertEquals(1, server.awaitExit(Duration.ofSeconds(60)));
            assertTrue(server.output().contains("--carriers 1 did not take effect"), server.output());
            assertTrue(server.output().contains("3 carriers"), server.output());
        }
    }
}
