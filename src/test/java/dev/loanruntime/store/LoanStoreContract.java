package dev.loanruntime.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

/** What every store promises, whatever holds the state. One subclass per store opens an empty one. */
abstract class LoanStoreContract {
    private static final int THREADS = 16;
    private static final int PER_THREAD = 250;
    protected LoanStore store;

    /** A store with no loans and no sessions. */
    abstract LoanStore openEmpty() throws Exception;

    @BeforeEach
    void open() throws Exception {
        store = openEmpty();
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void emptyStoreCountsNoLoans() {
        assertThat(store.loans(), is(0L));
    }

    @Test
    void incrementReturnsTheCountAfterIt() {
        assertThat(List.of(store.incrementLoans(), store.incrementLoans(), store.incrementLoans()), is(List.of(1L, 2L, 3L)));
        assertThat(store.loans(), is(3L));
    }

    @Test
    void concurrentIncrementsAreNeitherLostNorCountedTwice() throws Exception {
        List<Future<List<Long>>> results = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(THREADS)) {
            for (int t = 0; t < THREADS; t++) {
                results.add(threads.submit(() -> {
                    List<Long> seen = new ArrayList<>();
                    for (int i = 0; i < PER_THREAD; i++) {
                        seen.add(store.incrementLoans());
                    }
                    return seen;
                }));
            }
        }
        Set<Long> seen = new TreeSet<>();
        for (Future<List<Long>> result : results) {
            seen.addAll(result.get());
        }
        long total = THREADS * PER_THREAD;
        // Every count from 1 to total was handed out exactly once: none lost, none given twice.
        Set<Long> expected = LongStream.rangeClosed(1, total).boxed().collect(Collectors.toCollection(TreeSet::new));
        assertThat(seen.equals(expected), is(true));
        assertThat(seen.size(), is((int) total));
        assertThat(store.loans(), is(total));
    }

    @Test
    void sessionNamesItsMemberUntilRemoved() {
        store.putSession("key-a", "ada", Duration.ofMinutes(5));
        store.putSession("key-b", "ben", Duration.ofMinutes(5));
        assertThat(store.sessionMember("key-a"), is(Optional.of("ada")));
        assertThat(store.sessionMember("key-b"), is(Optional.of("ben")));
        store.removeSession("key-a");
        assertThat(store.sessionMember("key-a"), is(Optional.empty()));
        assertThat(store.sessionMember("key-b"), is(Optional.of("ben")));
    }

    @Test
    void unknownSessionIsEmptyAndRemovingItIsHarmless() {
        assertThat(store.sessionMember("never-created"), is(Optional.empty()));
        assertDoesNotThrow(() -> store.removeSession("never-created"));
    }

    @Test
    void sessionExpiresAfterItsTimeToLive() {
        store.putSession("short", "cleo", Duration.ofMillis(300));
        store.putSession("long", "ada", Duration.ofMinutes(5));
        assertThat(store.sessionMember("short"), is(Optional.of("cleo")));
        await("store.sessionMember(\"short\").isEmpty()").atMost(Duration.ofSeconds(5))
                .until(() -> store.sessionMember("short").isEmpty());
        assertThat(store.sessionMember("long"), is(Optional.of("ada")));
    }

    @Test
    void reachableStoreAnswersPing() {
        assertDoesNotThrow(store::ping);
    }
}
