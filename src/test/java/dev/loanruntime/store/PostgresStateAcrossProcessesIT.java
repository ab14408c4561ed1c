package dev.loanruntime.store;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.loanruntime.testing.PostgresProcess;
import dev.loanruntime.testing.TestPostgres;

class PostgresStateAcrossProcessesIT extends StateAcrossProcessesContract {
    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @Override
    void emptyStore() throws Exception {
        PG.empty();
    }

    @Override
    String store() {
        return PG.storeArgument();
    }

    /**
     * 32 requests in flight per process share a pool of 10: on a busy machine a wait for a connection can pass the
     * default second and answer 503, which is the pool's bound working, not state lost. This test is about the count.
     */
    @Override
    List<String> storeArguments() {
        return List.of("--store-pool-timeout", "30s");
    }

    @Override
    Map<String, String> environment() {
        return PostgresProcess.environment();
    }

    @Override
    boolean shared() {
        return true;
    }
}
