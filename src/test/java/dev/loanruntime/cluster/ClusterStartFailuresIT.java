package dev.loanruntime.cluster;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.loanruntime.protocol.StatusLines;
import dev.loanruntime.testing.ClusterProcess;
import dev.loanruntime.testing.Ports;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * A cluster that cannot start: a port its workers cannot share, a worker that does not listen within the start
 * timeout, a crash loop. Nothing here is timed closer than whole seconds, so it runs beside other classes.
 */
class ClusterStartFailuresIT {
    @Test
    void portZeroIsRefusedBecauseWorkersMustShareAKnownPort() throws Exception {
        try (ClusterProcess cluster = ClusterProcess.start("--port", "0")) {
            assertThat(cluster.primary().awaitExit(Duration.ofSeconds(60)), is(2));
            await("cluster.output().contains(\"'--port'\")").atMost(Duration.ofSeconds(10))
                    .until(() -> cluster.output().contains("'--port'"));
            assertThat(cluster.announcedWorkerPids(), empty());
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
                assertThat(cluster.output(),
                        containsString("worker 1 pid=" + worker + " not ready after 1 s; killing it"));
                assertThat(cluster.output(), containsString("worker 1 failed 1 times in a row (exit 137"));
                assertThat(cluster.output(), not(containsString(StatusLines.CLUSTER_READY)));
            }
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
                assertThat(cluster.output(),
                        containsString("giving up. Its last error: loan-runtime: cannot listen on 127.0.0.1:" + port));
                List<Long> started = cluster.announcedWorkerPids();
                assertThat(started.size(), is(not(0)));
                assertThat(started.stream().filter(ClusterProcess::alive).toList(), empty());
            }
        }
    }
}
