package dev.loanruntime.store;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.loanruntime.testing.TestRedis;

class RedisLoanStoreIT extends LoanStoreContract {
    @RegisterExtension
    static final TestRedis REDIS = new TestRedis();

    @Override
    LoanStore openEmpty() throws Exception {
        REDIS.database().flush();
        return REDIS.database().uri().open();
    }
}
