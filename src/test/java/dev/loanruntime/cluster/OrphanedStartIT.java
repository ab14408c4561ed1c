package dev.loanruntime.cluster;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.protocol.StatusLines;
import dev.loanruntime.testing.ClusterProcess;
import dev.loanruntime.testing.Ports;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

/**
 * A worker or spare JVM whose primary is SIGKILLed while it still starts: it must not live on through its
 * warm-up or its server's start, which take seconds, but notice the end of its primary's pipe at once. The bound is
 * generous for a loaded 2-core machine; each case prints how long the orphan lived.
 */
@Timeout(180)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class OrphanedStartIT {
    // Before the pipe was watched from main's first line: a spare lived 3.4 s, a worker 2.4 s (one run each).
    private static final Duration BOUND = Duration.ofSeconds(2);
    private static final Pattern WORKER_STARTED = Pattern.compile("worker 1 started pid=(\\d+)");

    @Test
    void aSpareStillWarmingUpExitsSoonAfterItsPrimaryIsKilled() throws Exception {
        try (Ports.Reservation reserved = Ports.reserveForReusePort();
                ClusterProcess cluster = ClusterProcess.start("--workers", "1", "--spares", "1", "--port",
                        Integer.toString(reserved.port())).awaitReady(ClusterProcess.START)) {
            long spare = awaitPid(cluster, StatusLines.SPARE_STARTED);
            long lived = killPrimaryAndTimeUntilGone(cluster, spare);
            System.out.println("a spare whose primary was SIGKILLed right after it started lived " + lived + " ms more");
            assertThat("ms the spare lived after its primary's SIGKILL", lived, lessThan(BOUND.toMillis()));
        }
    }

    @Test
    void aWorkerStillStartingExitsSoonAfterItsPrimaryIsKilled() throws Exception {
        try (Ports.Reservation reserved = Ports.reserveForReusePort();
                ClusterProcess cluster = ClusterProcess.start("--workers", "1", "--spares", "0", "--port",
                        Integer.toString(reserved.port()))) {
            long worker = awaitPid(cluster, WORKER_STARTED);
            long lived = killPrimaryAndTimeUntilGone(cluster, worker);
            System.out.println("a worker whose primary was SIGKILLed right after it started lived " + lived + " ms more");
            assertThat("ms the worker lived after its primary's SIGKILL", lived, lessThan(BOUND.toMillis()));
        }
    }

    /** Waits for the primary's line that it started a process, polling often: the kill must come right after. */
    private static long awaitPid(ClusterProcess cluster, Pattern started) {
        long[] pid = new long[1];
        await().atMost(ClusterProcess.START).pollInterval(Duration.ofMillis(5)).until(() -> {
            Matcher m = started.matcher(cluster.output());
            if (m.find()) {
                pid[0] = Long.parseLong(m.group(1));
                return true;
            }
            return false;
        });
        return pid[0];
    }

    /** SIGKILLs the primary; returns ms until {@code pid} and every other process it announced are gone. */
    private static long killPrimaryAndTimeUntilGone(ClusterProcess cluster, long pid) {
        List<Long> everyone = cluster.announcedWorkerPids();
        assertThat("pid " + pid + " runs", ClusterProcess.alive(pid), is(true));
        long killedAt = System.nanoTime();
        cluster.primary().process().toHandle().destroyForcibly();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10))
                .until(() -> everyone.stream().noneMatch(ClusterProcess::alive));
        return (System.nanoTime() - killedAt) / 1_000_000;
    }
}
