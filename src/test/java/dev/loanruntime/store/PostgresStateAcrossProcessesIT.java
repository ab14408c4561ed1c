package dev.loanruntime.store;

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

    @Override
    Map<String, String> environment() {
        return PostgresProcess.environment();
    }

    @Override
    boolean shared() {
        return true;
    }
}
