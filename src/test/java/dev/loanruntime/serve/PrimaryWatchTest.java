package dev.loanruntime.serve;

import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

class PrimaryWatchTest {
    @Test
    void theEndOfThePrimarysPipeStopsTheWorkerAndThenHaltsIt() throws Exception {
        PipedOutputStream primary = new PipedOutputStream();
        PipedInputStream pipe = new PipedInputStream(primary);
        CountDownLatch stopped = new CountDownLatch(1);
        CountDownLatch halted = new CountDownLatch(1);
        PrimaryWatch.start(pipe, stopped::countDown, Duration.ofMillis(200), halted::countDown);

        primary.write("ignored".getBytes());
        assertThat("stopped while the primary lives", stopped.await(300, TimeUnit.MILLISECONDS), is(false));

        primary.close();

        assertThat(stopped.await(10, TimeUnit.SECONDS), is(true));
        assertThat(halted.await(10, TimeUnit.SECONDS), is(true));
    }
}
