package dev.loanruntime.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

@ResourceLock(value = Resources.SYSTEM_ERR, mode = ResourceAccessMode.READ)   // a native library's warning
class SqliteLoanStoreTest extends LoanStoreContract {
    @TempDir
    Path dir;

    @Override
    LoanStore openEmpty() {
        return StoreUri.parse("sqlite:" + dir.resolve("loans.db")).open();
    }

    @Test
    void fileAndSchemaAreCreatedOnFirstUse() {
        Path nested = dir.resolve("a/b/new.db");
        try (LoanStore created = StoreUri.parse("sqlite:" + nested).open()) {
            assertThat(Files.exists(nested), is(true));
            assertThat(created.incrementLoans(), is(1L));
        }
    }

    @Test
    void storesOnTheSameFileShareCounterAndSessions() {
        try (LoanStore other = openEmpty()) {
            store.incrementLoans();
            assertThat(other.incrementLoans(), is(2L));
            other.putSession("k", "ada", Duration.ofMinutes(1));
            assertThat(store.sessionMember("k"), is(Optional.of("ada")));
        }
    }

    @Test
    void stateOutlivesTheStoreThatWroteIt() {
        store.incrementLoans();
        store.close();
        store = openEmpty();
        assertThat(store.loans(), is(1L));
    }

    @Test
    void fileThatCannotBeCreatedIsReportedUnavailable() throws Exception {
        Path blocker = Files.writeString(dir.resolve("not-a-directory"), "x");
        StoreUnavailableException e = assertThrows(StoreUnavailableException.class,
                () -> StoreUri.parse("sqlite:" + blocker.resolve("loans.db")).open());
        assertThat(e.getMessage(), containsString("not-a-directory"));
    }
}
