package dev.loanruntime.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.protocol.StatusLines;
import dev.loanruntime.testing.ClusterProcess;
import dev.loanruntime.testing.RawHttp;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * How a cluster ends, and the time limits on the way: SIGTERM with the kill timeout, and the orphans of a primary
 * killed outright. A cluster that cannot start: {@code ClusterStartFailuresIT}.
 */
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class ClusterStopIT {
    private static final Duration START = ClusterProcess.START;

    /**
     * SIGTERM to the primary: each worker stops gracefully, and one still busy after {@code --kill-timeout} (a
     * 10 s request, as long as its own grace period) gets SIGKILL, so that the primary exits 0 within seconds.
     */
    @Test
    void sigtermStopsEveryWorkerKillsOneStillBusyAfterTheKillTimeoutAndExitsZero() throws Exception {
        try (ClusterProcess cluster = ClusterProcess.ready(2, "--kill-timeout", "1", "--drain-delay", "0")) {
            int port = cluster.port();
            Set<Long> workers = cluster.workerPids();
            assertThat(workers, hasSize(2));
            CompletableFuture<RawHttp.Response> busy = CompletableFuture.supplyAsync(() -> {
                try {
                    return RawHttp.get(port, "/catalog/lookup?ms=10000");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            // the worker that holds it counts two requests in flight: the wait and the question
            AtomicLong busyPid = new AtomicLong();
            await().atMost(START).until(() -> {
                RawHttp.Response runtime = RawHttp.get(port, "/runtime");
                busyPid.set(runtime.pid());
                return runtime.number("requestsInFlight") == 2;
            });

            long termAt = System.nanoTime();
            // Through the handle: Process.destroy() would also close the pipe that carries the primary's output.
            cluster.primary().process().toHandle().destroy();
            assertThat(cluster.primary().awaitExit(Duration.ofSeconds(30)), is(0));
            long exitedAfterMs = (System.nanoTime() - termAt) / 1_000_000;

            assertThat(workers.stream().filter(ClusterProcess::alive).toList(), empty());
            // The output is read by another thread: it may lag behind the exit.
            await("cluster.output().contains(StatusLines.CLUSTER_STOPPED)").atMost(Duration.ofSeconds(10))
                    .until(() -> cluster.output().contains(StatusLines.CLUSTER_STOPPED));
            assertThat("a spare is not counted as a worker", cluster.output(), containsString("stopping 2 workers"));
            long idlePid = workers.stream().filter(pid -> pid != busyPid.get()).findFirst().orElseThrow();
            assertThat(cluster.output(), containsString(StatusLines.stopped(idlePid)));
            assertThat(cluster.output(), containsString("pid=" + busyPid + " still running after 1 s; killing it"));
            assertThat(cluster.output(), not(containsString(StatusLines.stopped(busyPid.get()))));
            // without the kill it would have taken the busy worker's grace period, 10 s
            assertThat("ms from SIGTERM to the primary's exit", exitedAfterMs, lessThan(7_000L));
            assertThrows(ExecutionException.class, busy::get);
        }
    }

    @Test
    void workersExitWithinTwoSecondsOfTheirPrimarysSigkill() throws Exception {
        try (ClusterProcess cluster = ClusterProcess.ready(2)) {
            Set<Long> workers = cluster.workerPids();
            assertThat(workers, hasSize(2));
            long killedAt = System.nanoTime();
            cluster.primary().process().toHandle().destroyForcibly();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> workers.stream().noneMatch(ClusterProcess::alive));
            long goneAfterMillis = (System.nanoTime() - killedAt) / 1_000_000;

            assertThat("ms until the last orphan exited", goneAfterMillis, lessThanOrEqualTo(2_000L));
        }
    }
}
