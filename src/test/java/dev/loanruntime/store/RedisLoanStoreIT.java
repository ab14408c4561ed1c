package dev.loanruntime.store;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.loanruntime.testing.TestRedis;

@ExtendWith(TestRedis.class)
class RedisLoanStoreIT extends LoanStoreContract {
    private static TestRedis.Database database;

    @BeforeAll
    static void database(TestRedis.Database given) {
        database = given;
    }

    @Override
    LoanStore openEmpty() throws Exception {
        database.flush();
        return database.uri().open();
    }
}
