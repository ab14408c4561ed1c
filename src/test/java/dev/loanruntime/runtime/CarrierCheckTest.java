package dev.loanruntime.runtime;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CarrierCheckTest {

    @Test
    void singleCarrierModeReportsOneCarrier() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--carriers", "1")) {
            assertTrue(server.output().contains("carriers=1"), server.output());
            assertEquals(1, new Http(server.baseUri()).get("/runtime").json().get("carriers").asInt());
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
