package dev.loanruntime.store;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.loanruntime.testing.TestRedis;

class RedisStateAcrossProcessesIT extends StateAcrossProcessesContract {
    @RegisterExtension
    static final TestRedis REDIS = new TestRedis();

    @Override
    void emptyStore() throws Exception {
        REDIS.database().flush();
    }

    @Override
    String store() {
        return REDIS.database().storeArgument();
    }

    @Override
    boolean shared() {
        return true;
    }
}
