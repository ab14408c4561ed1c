package dev.loanruntime.store;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.loanruntime.testing.TestPostgres;

class PostgresLoanStoreIT extends LoanStoreContract {
    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @Override
    LoanStore openEmpty() throws Exception {
        PG.empty();
        return PG.uri().open();
    }
}
