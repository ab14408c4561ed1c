package dev.loanruntime.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

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
import static org.hamcrest.Matchers.not;

/**
 * The cluster's warm spare as real processes: it does not listen until promoted, it takes a dead worker's place,
 * it is replaced after a promotion and on a rolling restart, and it never outlives its primary.
 */
class SparesIT {
    private static final Duration START = Duration.ofSeconds(120);

    private static ClusterProcess standingBy(int port) throws IOException {
        ClusterProcess cluster = ClusterProcess.start("--workers", "1", "--spares", "1", "--port",
                Integer.toString(port)).awaitReady(START);
        await("cluster.output().contains(\"standing by\")").atMost(START)
                .until(() -> cluster.output().contains("standing by"));
        return cluster;
    }

    private static List<Long> spares(ClusterProcess cluster) {
        List<Long> pids = new ArrayList<>();
        Matcher m = StatusLines.SPARE_STARTED.matcher(cluster.output());
        while (m.find()) {
            pids.add(Long.parseLong(m.group(1)));
        }
        return pids;
    }

    @Test
    void theSpareDoesNotListenUntilAWorkerDiesThenTakesItsPlaceAndANewSpareStarts() throws Exception {
        try (Ports.Reservation reserved = Ports.reserveForReusePort();
                ClusterProcess cluster = standingBy(reserved.port())) {
            int port = reserved.port();
            long spare = spares(cluster).getFirst();
            long worker = RawHttp.get(port, "/runtime").pid();
            assertThat(worker, is(not(spare)));
            assertThat("the worker's listening sockets on the port", listeningSockets(worker, port), is(not(empty())));
            assertThat("the spare's listening sockets on the port", listeningSockets(spare, port), empty());
            Set<Long> answered = new HashSet<>();
            for (int i = 0; i < 30; i++) {
                answered.add(RawHttp.get(port, "/runtime").pid());
            }
            assertThat(answered, is(Set.of(worker)));

            ProcessHandle.of(worker).orElseThrow().destroyForcibly();

            await("RawHttp.get(port, \"/runtime\").pid() == spare").atMost(START).ignoreExceptions()
                    .until(() -> RawHttp.get(port, "/runtime").pid() == spare);
            assertThat(RawHttp.get(port, "/runtime").number("workerId"), is(1L));
            assertThat(cluster.output(), containsString(StatusLines.nowSpare(1, spare)));
            await("spares(cluster).size() == 2").atMost(START).until(() -> spares(cluster).size() == 2);
            long next = spares(cluster).get(1);
            assertThat(ClusterProcess.alive(next), is(true));
            await("cluster.output().contains(StatusLines.standingBy(next))").atMost(START)
                    .until(() -> cluster.output().contains(StatusLines.standingBy(next)));
            assertThat(listeningSockets(next, port), empty());
        }
    }

    @Test
    void aRollingRestartReplacesTheSpareAndSigtermStopsIt() throws Exception {
        try (Ports.Reservation reserved = Ports.reserveForReusePort();
                ClusterProcess cluster = standingBy(reserved.port())) {
            long oldSpare = spares(cluster).getFirst();

            signal("HUP", cluster.pid());
            await("cluster.output().contains(\"rolling restart done\")").atMost(START)
                    .until(() -> cluster.output().contains("rolling restart done"));
            // the replacements start as spares too (standbys, then promoted); the cluster's new spare comes after
            await("a spare started after the restart").atMost(START)
                    .until(() -> cluster.output().lastIndexOf(StatusLines.started(0, spares(cluster).getLast()))
                            > cluster.output().indexOf("rolling restart done"));
            long newSpare = spares(cluster).getLast();
            assertThat("the spare of the old settings", ClusterProcess.alive(oldSpare), is(false));
            await("cluster.output().contains(StatusLines.standingBy(newSpare))").atMost(START)
                    .until(() -> cluster.output().contains(StatusLines.standingBy(newSpare)));

            List<Long> everyone = cluster.announcedWorkerPids();
            cluster.primary().process().toHandle().destroy();

            assertThat(cluster.primary().awaitExit(Duration.ofSeconds(30)), is(0));
            await("everyone.stream().noneMatch(ClusterProcess::alive)").atMost(Duration.ofSeconds(10))
                    .until(() -> everyone.stream().noneMatch(ClusterProcess::alive));
        }
    }

    @Test
    void aSigkilledPrimaryLeavesNoWorkerAndNoSpare() throws Exception {
        try (Ports.Reservation reserved = Ports.reserveForReusePort();
                ClusterProcess cluster = standingBy(reserved.port())) {
            int port = reserved.port();
            List<Long> everyone = cluster.announcedWorkerPids();
            assertThat(everyone, hasSize(2));
            assertThat(everyone.stream().filter(ClusterProcess::alive).toList(), hasSize(2));

            cluster.primary().process().toHandle().destroyForcibly();

            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> everyone.stream().noneMatch(ClusterProcess::alive));
        }
    }

    /** The inodes of the sockets listening on {@code port} that process {@code pid} holds open. */
    private static Set<String> listeningSockets(long pid, int port) throws IOException {
        Set<String> listening = new HashSet<>();
        String hexPort = String.format(":%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(table);
            if (!Files.exists(path)) {
                continue;
            }
            for (String line : Files.readAllLines(path)) {
                String[] f = line.trim().split("\\s+");
                // local_address is field 1, st 3 (0A = LISTEN), inode 9
                if (f.length > 9 && f[1].endsWith(hexPort) && f[3].equals("0A")) {
                    listening.add(f[9]);
                }
            }
        }
        Set<String> held = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        held.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        held.retainAll(listening);
        return held;
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor(), is(0));
    }
}
