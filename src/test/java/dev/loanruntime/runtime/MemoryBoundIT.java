package dev.loanruntime.runtime;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.hostile.HostileTally;
import dev.loanruntime.settings.ThreadModel;
import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;


/**
 * Each derivation holds 64 MiB. 500 concurrent heavy requests against a 512 MiB heap must not end in an
 * {@code OutOfMemoryError}: the excess is refused with 503, no more derivations run at once than the bound allows,
 * and the server keeps answering. With the default provider the 64 MiB are workspaces that the derivation permits
 * keep, never more than the bound lets run at once.
 *
 * <p>With virtual threads the heavy requests here are pooled: inline derivations would hold the carriers, so the
 * other 499 requests would be read only as carriers free up, one derivation at a time (the starvation that
 * {@code ExecutionModelIT} shows): bounded, but minutes long. The pool has more threads (2) than the bound (1)
 * allows derivations, so the bound, not the pool size, is what keeps the second one waiting. The platform case
 * keeps the heap-derived default (4 at 512 MiB) against 200 handler threads, half of them deriving inline.
 */
@ExtendWith(HostileTally.class)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class MemoryBoundIT {
    private static final int REQUESTS = 500;

    @ParameterizedTest(name = "{0}, blocking share {1}, max derivations {2}")
    @CsvSource({"virtual, 0, 1", "platform, 2, 4"})
    @Timeout(180)
    void fiveHundredConcurrentHeavyRequestsOnA512MiBHeapAreBoundedNotFatal(String modelName, int blockingEvery,
                                                                            int bound) throws Exception {
        ThreadModel model = ThreadModel.parse(modelName);
        List<String> args = new ArrayList<>(List.of("--threads", model.label(), "--crypto-threads", "2",
                "--crypto-queue", "1"));    // a short crypto queue keeps the run short
        if (model == ThreadModel.VIRTUAL) {
            args.addAll(List.of("--max-derivations", Integer.toString(bound)));
        }
        HostileTally.started();
        try (ServerProcess server = ServerProcess.serve(List.of("-Xmx512m"), args.toArray(String[]::new));
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            Http http = new Http(server.baseUri());
            assertThat(http.get("/runtime").json().get("derivationLimit").asInt(), is(bound));
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(30)).executor(clients).build();
            // beside the flood: a light client (every GET /books it sends while the heavy requests are in flight),
            // and a watcher of the derivations running at once
            List<Long> booksMs = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger mostRunning = new AtomicInteger();
            AtomicBoolean flooding = new AtomicBoolean(true);
            Future<?> light = clients.submit(() -> {
                while (flooding.get()) {
                    Http.Response books = http.get("/books");
                    assertThat(books.status(), is(200));
                    booksMs.add(books.took().toMillis());
                }
            });
            Future<?> watcher = clients.submit(() -> {
                while (flooding.get()) {
                    mostRunning.accumulateAndGet(http.get("/runtime").json().get("derivationsRunning").asInt(),
                            Math::max);
                    Thread.sleep(20);   // a sample every 20 ms: each derivation lasts a second or more
                }
                return null;
            });
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                String path = blockingEvery > 0 && i % blockingEvery == 0 ? "/member/verify-blocking" : "/member/verify-pooled";
                HttpRequest request = HttpRequest.newBuilder(URI.create(server.baseUri() + path))
                        .timeout(Duration.ofMinutes(3)).build();
                responses.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
            }
            Map<Integer, Integer> byStatus = new TreeMap<>();
            for (var response : responses) {
                HttpResponse<String> r = response.get();
                byStatus.merge(r.statusCode(), 1, Integer::sum);
                if (r.statusCode() == 503) {
                    assertThat("503 without Retry-After", r.headers().firstValue("retry-after").isPresent());
                }
            }
            flooding.set(false);
            light.get();
            watcher.get();
            List<Long> sorted = booksMs.stream().sorted().toList();
            long medianMs = sorted.get(sorted.size() / 2);
            long p99Ms = sorted.get(sorted.size() * 99 / 100);
            String books = sorted.size() + " GET /books: median " + medianMs + " ms, p99 " + p99Ms + " ms, slowest "
                    + sorted.getLast() + " ms";
            assertThat("server died:\n" + server.output(), server.process().isAlive());
            assertThat(server.output(), server.output().contains("OutOfMemoryError"), is(false));
            assertThat("derivations running at once: up to " + mostRunning + ", bound " + bound, mostRunning.get() >= 1 && mostRunning.get() <= bound);
            // Generous: a light request that waited for a derivation would take about a second. On a shared 2-core
            // machine the slowest ones follow CPU contention and collections; a percentile can still fail, where
            // the slowest alone could not.
            assertThat("during the flood: " + books, medianMs < 250 && p99Ms < 1_000);
            assertThat(byStatus.values().stream().mapToInt(Integer::intValue).sum(), is(REQUESTS));
            assertThat("only 200 and 503 expected: " + byStatus, byStatus, is(Map.of(200, byStatus.getOrDefault(200, 0), 503, byStatus.getOrDefault(503, 0))));
            assertThat("the excess must be refused: " + byStatus, byStatus.getOrDefault(503, 0) > 0);
            assertThat("some derivations must complete: " + byStatus, byStatus.getOrDefault(200, 0) > 0);
            var runtime = http.get("/runtime").json();
            assertThat(runtime.get("derivationsRunning").asInt(), is(0));
            int workspaces = runtime.get("scryptWorkspaces").asInt();
            assertThat(runtime.toString(), workspaces >= 1 && workspaces <= runtime.get("derivationLimit").asInt());
            Http.Response after = http.get("/books");
            assertThat(after.status(), is(200));
            HostileTally.survived();     // one case: the flood, after which the server still serves /books
            System.out.println(model.label() + " -Xmx512m, max-derivations " + bound + ", " + REQUESTS
                    + " heavy requests: " + byStatus + ", at most " + mostRunning + " deriving at once; meanwhile "
                    + books + "; " + runtime.get("hasher").asText() + " workspaces kept: " + workspaces);
        }
    }
}
