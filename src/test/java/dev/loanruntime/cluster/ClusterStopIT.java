package dev.loanruntime.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.protocol.StatusLines;
import dev.loanruntime.testing.ClusterProcess;
import dev.loanruntime.testing.Ports;
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
 * How a cluster ends, and the time limits on the way: SIGTERM with the kill timeout, a worker that does not start
 * within the start timeout, a crash loop, and the orphans of a primary killed outright.
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

    /**
     * A worker that does not listen within {@code --start-timeout} is killed and counts as a failed start. Its
     * store is an SQLite file that this test holds locked, so the worker cannot listen before SQLite's busy timeout
     * (2 s) however fast the machine, and fails by itself only after that.
     */
    @Test
    void aWorkerNotListeningWithinTheStartTimeoutIsKilledAndCountsAsAFailedStart(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("locked.db");
        try (Connection lock = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement statement = lock.createStatement()) {
            statement.execute("CREATE TABLE held (x)");
            statement.execute("BEGIN EXCLUSIVE");
            try (Ports.Reservation reserved = Ports.reserveForReusePort();
                    ClusterProcess cluster = ClusterProcess.start("--workers", "1", "--spares", "0",
                            "--port", Integer.toString(reserved.port()), "--start-timeout", "1",
                            "--max-fast-failures", "1", "--store", "sqlite:" + db)) {
                assertThat(cluster.primary().awaitExit(Duration.ofSeconds(60)), is(1));
                await("cluster.output().contains(StatusLines.CLUSTER_STOPPED)").atMost(Duration.ofSeconds(10))
                        .until(() -> cluster.output().contains(StatusLines.CLUSTER_STOPPED));
                long worker = cluster.announcedWorkerPids().getFirst();
                assertThat(cluster.output(), containsString("worker 1 pid=" + worker + " not ready after 1 s; killing it"));
                assertThat(cluster.output(), containsString("worker 1 failed 1 times in a row (exit 137"));
                assertThat(cluster.output(), not(containsString(StatusLines.CLUSTER_READY)));
            }
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

    @Test
    void aWorkerThatCannotStartMakesThePrimaryGiveUp() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            // Bound without SO_REUSEPORT: no worker can join it.
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();
            try (ClusterProcess cluster = ClusterProcess.start("--workers", "2", "--port", Integer.toString(port),
                    "--max-fast-failures", "3")) {
                int exit = cluster.primary().awaitExit(Duration.ofSeconds(120));
                await("cluster.output().contains(StatusLines.CLUSTER_STOPPED)").atMost(Duration.ofSeconds(10))
                        .until(() -> cluster.output().contains(StatusLines.CLUSTER_STOPPED));

                assertThat(exit, is(1));
                assertThat(cluster.output(), containsString("failed 3 times in a row"));
                assertThat(cluster.output(), containsString("giving up. Its last error: loan-runtime: cannot listen on 127.0.0.1:" + port));
                List<Long> started = cluster.announcedWorkerPids();
                assertThat(started.size(), is(not(0)));
                assertThat(started.stream().filter(ClusterProcess::alive).toList(), empty());
            }
        }
    }
}
