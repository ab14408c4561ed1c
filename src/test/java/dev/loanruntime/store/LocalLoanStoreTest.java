package dev.loanruntime.store;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

class LocalLoanStoreTest extends LoanStoreContract {

    @Override
    LoanStore openEmpty() {
        return StoreUri.parse("local").open();
    }

    @Test
    void twoLocalStoresDoNotShare() {
        try (LoanStore other = StoreUri.parse("local").open()) {
            store.incrementLoans();
            store.incrementLoans();
            assertThat(other.incrementLoans(), is(1L));
            assertThat(store.loans(), is(2L));
        }
    }
}
