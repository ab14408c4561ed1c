package dev.loanruntime.monitor;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;

class VirtualThreadSchedulerTest {
    /** JDK 24+ has the scheduler's bean, and its counts are the scheduler's: at least one carrier, none negative. */
    @Test
    void readsTheSchedulersOwnCountsFromJdk24() throws InterruptedException {
        Thread.ofVirtual().start(() -> { }).join();     // the scheduler exists once a virtual thread has run
        Optional<VirtualThreadScheduler.Counts> counts = VirtualThreadScheduler.now();
        assertThat(String.valueOf(counts), counts.isPresent(), is(Runtime.version().feature() >= 24));
        counts.ifPresent(c -> {
            assertThat(c.toString(), c.parallelism(), greaterThanOrEqualTo(1));
            assertThat(c.toString(), c.poolSize(), greaterThanOrEqualTo(0));
            assertThat(c.toString(), c.mounted(), greaterThanOrEqualTo(0));
            assertThat(c.toString(), c.queued(), greaterThanOrEqualTo(0L));
        });
    }
}
