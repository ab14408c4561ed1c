package dev.loanruntime;

import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.protocol.StatusLines;
import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.notNullValue;

/**
 * SIGTERM with a drain delay, in the order a load balancer needs: the server first reports not-ready (its
 * readiness answers 503), keeps accepting and serving new connections for the delay, and only then closes its
 * listener. A client opening a new connection per request, all through the drain, sees only 200s until its first
 * failed request; a prober sees the readiness answer turn to 503 before that.
 */
@Timeout(120)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class DrainIT {
    private static final int DELAY_SECONDS = 3;

    /** One request: when it started and ended (ns), and its status, or -1 for a refused connection, -2 otherwise. */
    record Exchange(String path, long startNanos, long endNanos, int status, String detail) {
        boolean refused() {
            return status == -1;
        }
    }

    @Test
    void sigtermTurnsNotReadyFirstKeepsServingThenClosesTheListener() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--drain-delay", Integer.toString(DELAY_SECONDS))) {
            int port = server.port();
            AtomicBoolean go = new AtomicBoolean(true);
            ConcurrentLinkedQueue<Exchange> client = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<Exchange> prober = new ConcurrentLinkedQueue<>();
            Thread clientThread = Thread.ofPlatform().start(() -> loop(port, List.of("/books"), client, go));
            Thread proberThread = Thread.ofPlatform().start(() -> loop(port,
                    List.of("/observe/health/ready", "/observe/health/check/drain"), prober, go));
            try {
                await("ok(client) >= 20 && ok(prober) >= 4").atMost(Duration.ofSeconds(30))
                        .until(() -> ok(client) >= 20 && ok(prober) >= 4);
                long termAt = System.nanoTime();
                server.sigterm();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                        .until(() -> client.stream().anyMatch(Exchange::refused));
                go.set(false);
                clientThread.join(Duration.ofSeconds(40));
                proberThread.join(Duration.ofSeconds(40));

                // The client's requests in order: 200s, then (once the listener closed) failures only. At the close
                // itself a request may get no response (the kernel's gap, docs/cluster.md), then connections are refused.
                List<Exchange> inOrder = List.copyOf(client);
                int firstFailure = 0;
                while (inOrder.get(firstFailure).status() == 200) {
                    firstFailure++;
                }
                Exchange closed = inOrder.get(firstFailure);
                List<Exchange> after = inOrder.subList(firstFailure, inOrder.size());
                assertThat("a request served after one failed: " + after, after.stream().noneMatch(e -> e.status() == 200),
                        is(true));
                assertThat("failures at the close other than refused connections: " + after,
                        after.stream().filter(e -> !e.refused()).count(), lessThanOrEqualTo(1L));

                Exchange ready503 = first503(prober, "/observe/health/ready");
                Exchange drain503 = first503(prober, "/observe/health/check/drain");
                assertThat("/observe/health/ready never answered 503: " + prober, ready503, notNullValue());
                assertThat("/observe/health/check/drain never answered 503: " + prober, drain503, notNullValue());
                assertThat(ready503.detail(), containsString("\"draining\":true"));
                // Order of magnitude only: the delay is 3 s; without a drain the listener closes within ms of the flip.
                assertThat("ms from the readiness 503 to the first failed request",
                        ms(closed.startNanos() - ready503.endNanos()), greaterThan(DELAY_SECONDS * 1000L / 2));
                long servedAfterFlip = inOrder.stream()
                        .filter(e -> e.startNanos() > ready503.endNanos() && e.status() == 200).count();
                assertThat("new connections served after the readiness answer turned 503", servedAfterFlip,
                        greaterThan(10L));

                long drainedMs = ms(closed.endNanos() - termAt);
                System.out.println("drain: readiness 503 " + ms(ready503.endNanos() - termAt)
                        + " ms after SIGTERM, listener closed " + drainedMs + " ms after it, " + servedAfterFlip
                        + " new connections served in between; at the close: " + after.stream()
                        .map(e -> e.refused() ? "refused" : e.detail()).toList());
                assertThat(drainedMs, greaterThan(DELAY_SECONDS * 1000L / 2));
                assertThat(drainedMs, lessThan(DELAY_SECONDS * 1000L + 15_000));

                assertThat(server.output(), server.awaitExit(Duration.ofSeconds(30)), is(0));
                String out = server.output();
                assertThat(out, out.indexOf(StatusLines.DRAINING), greaterThan(0));
                assertThat(out, out.indexOf(StatusLines.STOPPED), greaterThan(out.indexOf(StatusLines.DRAINING)));
            } finally {
                go.set(false);
            }
        }
    }

    /** Requests {@code paths} in turn, each on a new connection, until {@code go} ends or a connection is refused. */
    private static void loop(int port, List<String> paths, ConcurrentLinkedQueue<Exchange> log, AtomicBoolean go) {
        for (int i = 0; go.get(); i++) {
            String path = paths.get(i % paths.size());
            long start = System.nanoTime();
            try {
                RawHttp.Response r = RawHttp.get(port, path);
                log.add(new Exchange(path, start, System.nanoTime(), r.status(), r.body()));
            } catch (ConnectException e) {
                log.add(new Exchange(path, start, System.nanoTime(), -1, e.toString()));
                return;
            } catch (IOException e) {
                log.add(new Exchange(path, start, System.nanoTime(), -2, e.toString()));
            }
        }
    }

    private static long ok(ConcurrentLinkedQueue<Exchange> log) {
        return log.stream().filter(e -> e.status() == 200).count();
    }

    private static Exchange first503(ConcurrentLinkedQueue<Exchange> log, String path) {
        return log.stream().filter(e -> e.path().equals(path) && e.status() == 503).findFirst().orElse(null);
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }
}
