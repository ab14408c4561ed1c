package dev.loanruntime.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.protocol.StatusLines;
import dev.loanruntime.testing.ClusterProcess;
import dev.loanruntime.testing.LoadLoop;
import dev.loanruntime.testing.RawHttp;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The cluster as real processes on a real shared port: spread, per-process state, replacement, rolling restart.
 * No spares (see {@code SparesIT}): these tests count the primary's children as its workers.
 */
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class ClusterIT {
    private static final Duration START = ClusterProcess.START;
    /**
     * The rolling-restart tests count lost requests, which the drain delay does not change (each new worker listens
     * before its predecessor is told to stop), while every step waits it out: a short one keeps them short.
     */
    private static final String[] SHORT_DRAIN = {"--drain-delay", "500ms"};

    @Test
    void everyWorkerAnswersAndKeepsItsOwnCounter() throws Exception {
        try (ClusterProcess cluster = ClusterProcess.ready(3)) {
            int port = cluster.port();
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

            // a scrape through the one port says which worker it reached, on every sample
            Set<String> scraped = new HashSet<>();
            for (int i = 0; i < 60 && scraped.size() < 3; i++) {
                String metrics = RawHttp.get(port, "/observe/metrics").body();
                Matcher worker = Pattern.compile("(?m)^loan_counter\\{worker=\"(\\d+)\",").matcher(metrics);
                assertThat(metrics, worker.find());
                String id = worker.group(1);
                assertThat("every sample of one scrape names its worker", metrics.lines()
                        .filter(l -> !l.startsWith("#") && !l.isBlank())
                        .filter(l -> !l.contains("worker=\"" + id + "\"")).toList(), is(List.of()));
                scraped.add(id);
            }
            assertThat(scraped, is(Set.of("1", "2", "3")));
        }
    }

    @Test
    void aKilledWorkerIsReplacedByANewProcess() throws Exception {
        try (ClusterProcess cluster = ClusterProcess.ready(2)) {
            int port = cluster.port();
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
            await("RawHttp.get(port, \"/status\").pid() == newPid").atMost(START)
                    .until(() -> RawHttp.get(port, "/status").pid() == newPid);
            assertThat(cluster.output(), containsString("died pid=" + victim + " (exit 137), starting a replacement"));
        }
    }

    /**
     * A rolling restart starts every replacement at once and only then replaces the workers, one by one: each
     * replacement stood by before the first worker was replaced, so no step waits for a JVM's start.
     */
    @Test
    @Timeout(180)
    void aRollingRestartStartsEveryReplacementBeforeItsFirstStep() throws Exception {
        try (ClusterProcess cluster = ClusterProcess.ready(2, SHORT_DRAIN)) {
            int from = cluster.output().length();
            signal("HUP", cluster.pid());
            await("rolling restart done").atMost(Duration.ofMinutes(2))
                    .until(() -> cluster.output().indexOf("rolling restart done", from) >= 0);
            String restart = cluster.output().substring(from);
            Matcher replaced = Pattern.compile("replaced: pid=\\d+ \\(stopped\\) -> pid=(\\d+) in \\d+ ms")
                    .matcher(restart);
            int firstStep = -1;
            List<Long> fresh = new ArrayList<>();
            while (replaced.find()) {
                firstStep = firstStep < 0 ? replaced.start() : firstStep;
                fresh.add(Long.parseLong(replaced.group(1)));
            }
            assertThat(restart, fresh, hasSize(2));
            for (long pid : fresh) {
                int stoodBy = restart.indexOf(StatusLines.standingBy(pid));
                assertThat(restart, stoodBy, is(greaterThanOrEqualTo(0)));
                assertThat("pid " + pid + " stood by before the first step:\n" + restart, stoodBy,
                        is(lessThan(firstStep)));
            }
        }
    }

    /**
     * SIGHUP with a single worker: nothing else listens, so a connection is refused if the old worker stops before
     * its successor listens, and requests in flight fail if the old worker does not finish them. Slow requests (3 s
     * each, a new one every half second) are in flight on the old worker whenever it is told to stop; neither they
     * nor refused connections are retried. Only {@code /books} requests reset in the closing listener's queue (the
     * kernel's gap, see README) are sent again, once.
     */
    @Test
    @Timeout(180)
    void aRollingRestartOfTheOnlyWorkerRefusesNoConnectionAndFinishesEveryRequest() throws Exception {
        try (ClusterProcess cluster = ClusterProcess.ready(1, SHORT_DRAIN)) {
            int port = cluster.port();
            long old = RawHttp.get(port, "/status").pid();
            LoadLoop books = LoadLoop.start(port, 2, Duration.ofMinutes(3));
            LoadLoop slow = LoadLoop.start(port, "/catalog/lookup?ms=3000", 6, Duration.ofMillis(500),
                    Duration.ofMinutes(3), LoadLoop.Retry.NEVER);
            await("books.ok() >= 50 && slow.ok() >= 6").atMost(START).until(() -> books.ok() >= 50 && slow.ok() >= 6);

            signal("HUP", cluster.pid());
            await("cluster.output().contains(\"rolling restart done\")").atMost(Duration.ofMinutes(2))
                    .until(() -> cluster.output().contains("rolling restart done"));
            int booksAtRollEnd = books.ok();
            int slowAtRollEnd = slow.ok();
            await("books.ok() >= booksAtRollEnd + 50 && slow.ok() >= slowAtRollEnd + 6").atMost(START)
                    .until(() -> books.ok() >= booksAtRollEnd + 50 && slow.ok() >= slowAtRollEnd + 6);
            books.stop();
            slow.stop();

            assertThat("slow requests failed: " + slow.failures(), slow.failed(), is(0));
            assertThat("/books failed: " + books.failures(), books.failed(), is(0));
            assertThat("/books retried of " + books.ok(), books.retried(), lessThanOrEqualTo(Math.max(5, books.ok() / 100)));
            long fresh = RawHttp.get(port, "/status").pid();
            assertThat(cluster.workerPids(), is(Set.of(fresh)));
            // SIGTERM, then its requests finished: the old worker's own graceful stop, not a kill (exit 137)
            assertThat(cluster.output(), containsString("worker 1 replaced: pid=" + old + " (stopped) -> pid=" + fresh
                    + " in "));
        }
    }

    /**
     * Three rolling restarts under two loads at once lose no request: /books on a new connection per request, and
     * /books on kept-alive connections. A stopping worker stops accepting, answers every request it had accepted (from
     * its drain on, each with {@code Connection: close}, so kept-alive clients move to a new connection), and only
     * then stops. What waits in a closing listener's queue, not yet accepted, the kernel hands to the other listeners
     * of the port with {@code net.ipv4.tcp_migrate_req=1} and resets with 0 (docs/cluster.md): the test sets 1 where
     * it may (root, Linux 5.14 or later) and sets the old value back.
     */
    @Test
    void threeRollingRestartsUnderNewAndKeptAliveConnectionsLoseNoRequest() throws Exception {
        Path migrate = Path.of("/proc/sys/net/ipv4/tcp_migrate_req");
        assumeTrue(Files.isWritable(migrate), "needs to set net.ipv4.tcp_migrate_req=1 (root, Linux 5.14 or later)");
        String before = Files.readString(migrate).trim();
        Files.writeString(migrate, "1");
        try (ClusterProcess cluster = ClusterProcess.ready(1, SHORT_DRAIN)) {
            int port = cluster.port();
            LoadLoop fresh = LoadLoop.start(port, "/books", 2, Duration.ZERO, Duration.ofMinutes(3),
                    LoadLoop.Retry.NEVER);
            LoadLoop kept = LoadLoop.keepAlive(port, "/books", 2, Duration.ofMinutes(3));
            for (int restart = 1; restart <= 3; restart++) {
                int freshBefore = fresh.ok();
                int keptBefore = kept.ok();
                await("both loads answered").atMost(START)
                        .until(() -> fresh.ok() >= freshBefore + 50 && kept.ok() >= keptBefore + 200);
                int done = restart;
                signal("HUP", cluster.pid());
                await("rolling restart " + done + " done").atMost(Duration.ofMinutes(2))
                        .until(() -> count(cluster.output(), "rolling restart done") >= done);
            }
            int freshAtEnd = fresh.ok();
            int keptAtEnd = kept.ok();
            await("both loads go on").atMost(START)
                    .until(() -> fresh.ok() >= freshAtEnd + 50 && kept.ok() >= keptAtEnd + 200);
            fresh.stop();
            kept.stop();

            assertThat("new-connection requests failed: " + fresh.failures(), fresh.failed(), is(0));
            assertThat("kept-alive requests failed: " + kept.failures(), kept.failed(), is(0));
            assertThat("kept-alive requests sent again after a server closed their idle connection",
                    kept.retried(), is(0));
            assertThat("answers that moved a kept-alive client to a new connection", kept.closedByServer(),
                    greaterThanOrEqualTo(3));
            // A step is the promotion, the drain and the stop: each new worker stood by before it took its slot.
            Matcher replaced = Pattern.compile("replaced: pid=\\d+ \\(stopped\\) -> pid=(\\d+) in \\d+ ms")
                    .matcher(cluster.output());
            int steps = 0;
            while (replaced.find()) {
                long pid = Long.parseLong(replaced.group(1));
                int stoodBy = cluster.output().indexOf(StatusLines.standingBy(pid));
                assertThat("pid " + pid + " stood by before its promotion", stoodBy, is(greaterThanOrEqualTo(0)));
                assertThat(stoodBy, is(lessThan(cluster.output().indexOf(StatusLines.nowSpare(1, pid)))));
                steps++;
            }
            assertThat(cluster.output(), steps, is(3));
        } finally {
            Files.writeString(migrate, before);
        }
    }

    private static int count(String text, String part) {
        return text.split(Pattern.quote(part), -1).length - 1;
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor(), is(0));
    }
}
