package dev.loanruntime.store;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.loanruntime.testing.TestRedis;

@ExtendWith(TestRedis.class)
class RedisStateAcrossProcessesIT extends StateAcrossProcessesContract {
    private static TestRedis.Database database;

    @BeforeAll
    static void database(TestRedis.Database given) {
        database = given;
    }

    @Override
    void emptyStore() throws Exception {
        database.flush();
    }

    @Override
    String store() {
        return database.storeArgument();
    }

    @Override
    boolean shared() {
        return true;
    }
}
