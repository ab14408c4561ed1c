package dev.loanruntime.protocol;

import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

// The watch logs its warnings to System.err: not while a test that swaps it (CliRun) reads what it printed.
@ResourceLock(value = Resources.SYSTEM_ERR, mode = ResourceAccessMode.READ)
class PrimaryWatchTest {
    /** The primary's end of the pipe: closing it is the primary's death. */
    private final PipedOutputStream primary = new PipedOutputStream();
    /** The worker's end, which the watch reads. */
    private final PipedInputStream pipe;
    private final CountDownLatch halted = new CountDownLatch(1);

    PrimaryWatchTest() throws IOException {
        pipe = new PipedInputStream(primary);
    }

    @Test
    void theEndOfThePrimarysPipeStopsAServingWorkerAndThenHaltsIt() throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        PrimaryWatch watch = PrimaryWatch.start(pipe, false, Duration.ofMillis(200), halted::countDown);
        watch.onGone(stopped::countDown);

        primary.write("ignored".getBytes());
        assertThat("stopped while the primary lives", stopped.await(300, TimeUnit.MILLISECONDS), is(false));

        primary.close();

        assertThat(stopped.await(10, TimeUnit.SECONDS), is(true));
        assertThat(halted.await(10, TimeUnit.SECONDS), is(true));
    }

    @Test
    void aWorkerThatDoesNotServeYetHaltsAtOnceWhenThePrimaryIsGone() throws Exception {
        // A grace far longer than the wait below: only an immediate halt passes.
        PrimaryWatch.start(pipe, false, Duration.ofMinutes(10), halted::countDown);
        assertThat("halted while the primary lives", halted.await(300, TimeUnit.MILLISECONDS), is(false));

        primary.close();

        assertThat(halted.await(10, TimeUnit.SECONDS), is(true));
    }

    @Test
    void aSparesPromotionIsReadAtOnceAndKeptUntilItIsAskedFor() throws Exception {
        PrimaryWatch watch = PrimaryWatch.start(pipe, true, Duration.ofMinutes(10), halted::countDown);

        primary.write(Standby.promotion(3));
        primary.flush();

        assertThat(watch.awaitPromotion(), is(OptionalInt.of(3)));
        assertThat("halted while the primary lives", halted.await(300, TimeUnit.MILLISECONDS), is(false));
    }

    @Test
    void aSpareWhosePrimaryIsGoneBeforeItsPromotionIsNeverPromotedAndHaltsAtOnce() throws Exception {
        // A grace far longer than the waits below: only an immediate halt passes.
        PrimaryWatch watch = PrimaryWatch.start(pipe, true, Duration.ofMinutes(10), halted::countDown);
        assertThat("halted while the primary lives", halted.await(300, TimeUnit.MILLISECONDS), is(false));

        primary.close();

        assertThat("a spare halts when its primary is gone", halted.await(10, TimeUnit.SECONDS), is(true));
        assertThat("no promotion, and the wait for one ends", watch.awaitPromotion(), is(OptionalInt.empty()));
    }
}
