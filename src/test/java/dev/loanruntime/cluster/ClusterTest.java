package dev.loanruntime.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.loanruntime.testing.ClusterProcess;
import dev.loanruntime.testing.LoadLoop;
import dev.loanruntime.testing.RawHttp;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.not;

/** The cluster as real processes on a real shared port: spread, per-process state, replacement, stop. */
class ClusterTest {
    private static final Duration START = Duration.ofSeconds(90);

    private static ClusterProcess readyCluster(int workers, int port) throws IOException {
        // No spare: these tests count the primary's children as its workers, and replace a worker by a new JVM.
        return ClusterProcess.start("--workers", Integer.toString(workers), "--spares", "0", "--port",
                        Integer.toString(port))
                .awaitReady(START);
    }

    @Test
    void everyWorkerAnswersAndKeepsItsOwnCounter() throws Exception {
        int port = RawHttp.freePort();
        try (ClusterProcess cluster = readyCluster(3, port)) {
            Set<Long> workers = cluster.workerPids();
            assertThat(workers, hasSize(3));

            Map<Long, Long> lastCounter = new HashMap<>();
            int requests = 0;
            while (lastCounter.size() < 3 && requests < 60) {
                RawHttp.Response loan = RawHttp.get(port, "/loan");
                requests++;
                long previous = lastCounter.getOrDefault(loan.pid(), 0L);
                // Each process counts only its own loans: one more than the last value this pid returned.
                assertThat(loan.number("loanCounter"), is(previous + 1));
                lastCounter.put(loan.pid(), loan.number("loanCounter"));
            }
            assertThat("pids that answered within " + requests + " requests", lastCounter.keySet(), is(workers));
            assertThat(lastCounter.values(), everyItem(lessThan((long) requests)));

            Set<Long> workerIds = new HashSet<>();
            for (int i = 0; i < 60 && workerIds.size() < 3; i++) {
                workerIds.add(RawHttp.get(port, "/runtime").number("workerId"));
            }
            assertThat(workerIds, is(Set.of(1L, 2L, 3L)));
        }
    }

    @Test
    void aKilledWorkerIsReplacedByANewProcess() throws Exception {
        int port = RawHttp.freePort();
        try (ClusterProcess cluster = readyCluster(2, port)) {
            Set<Long> before = cluster.workerPids();
            long victim = RawHttp.get(port, "/status").pid();
            assertThat(before.contains(victim), is(true));

            ProcessHandle.of(victim).orElseThrow().destroyForcibly();

            await().atMost(START).until(() -> {
                Set<Long> now = cluster.workerPids();
                return now.size() == 2 && !now.contains(victim);
            });
            Set<Long> replacement = new HashSet<>(cluster.workerPids());
            replacement.removeAll(before);
            assertThat(replacement, hasSize(1));
            long newPid = replacement.iterator().next();
            await().atMost(START).until(() -> RawHttp.get(port, "/status").pid() == newPid);
            assertThat(cluster.output(), containsString("died pid=" + victim + " (exit 137), starting a replacement"));
        }
    }

    @Test
    void sigtermStopsEveryWorkerAndExitsZero() throws Exception {
        int port = RawHttp.freePort();
        try (ClusterProcess cluster = readyCluster(2, port)) {
            Set<Long> workers = cluster.workerPids();
            assertThat(workers, hasSize(2));

            // Through the handle: Process.destroy() would also close the pipe that carries the primary's output.
            cluster.primary().process().toHandle().destroy();

            assertThat(cluster.primary().awaitExit(Duration.ofSeconds(30)), is(0));
            assertThat(workers.stream().filter(ClusterProcess::alive).toList(), empty());
            // The output is read by another thread: it may lag behind the exit.
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.output().contains("cluster stopped"));
            assertThat(cluster.output(), containsString("[worker 1] loan-runtime stopped pid="));
        }
    }

    @Test
    void workersExitWithinTwoSecondsOfTheirPrimarysSigkill() throws Exception {
        int port = RawHttp.freePort();
        try (ClusterProcess cluster = readyCluster(2, port)) {
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
                await().atMost(Duration.ofSeconds(10)).until(() -> cluster.output().contains("cluster stopped"));

                assertThat(exit, is(1));
                assertThat(cluster.output(), containsString("failed 3 times in a row"));
                assertThat(cluster.output(), containsString("giving up. Its last error: loan-runtime: cannot listen on 127.0.0.1:" + port));
                List<Long> started = cluster.announcedWorkerPids();
                assertThat(started.size(), is(not(0)));
                assertThat(started.stream().filter(ClusterProcess::alive).toList(), empty());
            }
        }
    }

    @Test
    void aRollingRestartUnderLoadLosesNoRequest() throws Exception {
        int port = RawHttp.freePort();
        try (ClusterProcess cluster = readyCluster(2, port)) {
            Set<Long> before = cluster.workerPids();
            LoadLoop load = LoadLoop.start(port, 3, Duration.ofMinutes(5));
            await().atMost(START).until(() -> load.ok() >= 50);

            signal("HUP", cluster.pid());
            await().atMost(Duration.ofMinutes(3)).until(() -> cluster.output().contains("rolling restart done"));
            int okAtRollEnd = load.ok();
            await().atMost(START).until(() -> load.ok() >= okAtRollEnd + 50);
            load.stop();

            // Retried: connections the kernel reset when a listener closed with them in its queue (see README).
            assertThat("requests that failed: " + load.failures() + ", retried: " + load.retried(), load.failed(), is(0));
            assertThat("retried of " + load.ok(), load.retried(), lessThanOrEqualTo(Math.max(5, load.ok() / 100)));
            Set<Long> after = cluster.workerPids();
            assertThat(after, hasSize(2));
            assertThat(after.stream().filter(before::contains).toList(), empty());
        }
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor(), is(0));
    }

    @Test
    void portZeroIsRefusedBecauseWorkersMustShareAKnownPort() throws IOException, InterruptedException {
        try (ClusterProcess cluster = ClusterProcess.start("--port", "0")) {
            assertThat(cluster.primary().awaitExit(Duration.ofSeconds(60)), is(2));
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.output().contains("'--port'"));
            assertThat(cluster.announcedWorkerPids(), empty());
        }
    }
}
