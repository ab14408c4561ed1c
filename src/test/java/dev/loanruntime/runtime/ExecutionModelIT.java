package dev.loanruntime.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;


/**
 * The lesson's measurement on real sockets, one server JVM per execution model: a heavy request, then four light
 * {@code /books} requests 200 ms later. Only order-of-magnitude contrasts are asserted; the experiments print numbers.
 */
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class ExecutionModelIT {
    /**
     * Longer than the lesson's 50 ms, as in the probe's test: on a busy machine the heavy request's new connection
     * and dispatch may take longer than 50 ms, and light requests that arrive before the derivation has begun
     * would not wait for it.
     */
    private static final long GAP_MS = 200;

    static List<Arguments> models() {
        return List.of(
                // one carrier, derivation on the request's virtual thread: every light request waits for it
                Arguments.of(List.of("--carriers", "1"), "/member/verify-blocking", true),
                // one carrier, derivation on the crypto pool: the carrier stays free
                Arguments.of(List.of("--carriers", "1"), "/member/verify-pooled", false),
                // platform handler threads are time-sliced by the OS, even with inline heavy work
                Arguments.of(List.of("--threads", "platform", "--carriers", "1"), "/member/verify-blocking", false));
    }

    @ParameterizedTest(name = "{0} {1}: light requests starve = {2}")
    @MethodSource("models")
    void lightRequestsWaitForTheHeavyOneOnlyWhenItHoldsTheOnlyCarrier(List<String> args, String heavyPath,
                                                                        boolean starves) throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of("-Xmx1g"), args.toArray(String[]::new));
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            Http http = new Http(server.baseUri());
            assertThat(http.get("/books").status(), is(200));
            assertThat(http.get(heavyPath).status(), is(200));    // warm-up: class loading and JIT

            CompletableFuture<Long> heavy = CompletableFuture.supplyAsync(() -> timed(server, heavyPath), clients);
            Thread.sleep(GAP_MS);   // the lesson's pattern: light requests arrive a moment after the heavy one
            List<CompletableFuture<Long>> lights = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                lights.add(CompletableFuture.supplyAsync(() -> timed(server, "/books"), clients));
            }
            long heavyNanos = heavy.get();
            for (CompletableFuture<Long> light : lights) {
                double ratio = (double) light.get() / heavyNanos;
                String detail = "light %.3f s vs heavy %.3f s".formatted(light.get() / 1e9, heavyNanos / 1e9);
                if (starves) {
                    assertThat("light requests should wait for the heavy one: " + detail, ratio >= 0.5);
                } else {
                    assertThat("light requests should not wait for the heavy one: " + detail, ratio < 0.25);
                }
            }
        }
    }

    private static long timed(ServerProcess server, String path) {
        long start = System.nanoTime();
        // a fresh client per request: a new connection each time, as curl makes
        Http.Response r = new Http(server.baseUri()).get(path);
        long took = System.nanoTime() - start;
        assertThat(path + " -> " + r.body(), r.status(), is(200));
        return took;
    }
}
