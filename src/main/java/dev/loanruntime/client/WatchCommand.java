package dev.loanruntime.client;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import dev.loanruntime.cli.Range;
import dev.loanruntime.cli.UsageError;

/**
 * {@code watch}: the server's monitors in a terminal, one line a second: the carrier delay (p99 and largest of the
 * last 10 s, and how late the probe is now), the light requests' stand-in (requests in flight), the crypto queue,
 * and what the overload protections refused in that second. Reads {@code /runtime} on a platform thread of its own;
 * point it at the admin port (the serving line's {@code admin=}) to see a stall while it lasts.
 */
@Command(name = "watch", mixinStandardHelpOptions = true, sortOptions = false,
         description = {"Print one line a second from a running server's /runtime until Ctrl-C: carrier delay p99 and "
                 + "max over the last 10 s and late now, requests in flight, the crypto pool's queue, refusals. "
                 + "Point it at the admin port (admin= in the serving line): it answers while the carriers are held.",
                 "Exit status: 0 after --count lines or Ctrl-C, 1 when the URL answers but is not a loan-runtime, "
                         + "2 for a bad URL."})
public final class WatchCommand implements Callable<Integer> {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    @Parameters(index = "0", arity = "0..1", defaultValue = "http://127.0.0.1:8430", paramLabel = "URL",
            description = "The server, e.g. http://127.0.0.1:39517 (default: ${DEFAULT-VALUE}).")
    String url;

    @Option(names = "--count", defaultValue = "0", paramLabel = "N",
            description = "Stop after N lines; 0 watches until Ctrl-C (default: ${DEFAULT-VALUE}).")
    @Range(min = 0, max = 1_000_000)
    int count;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        URI runtime = UsageError.orUsage(spec.commandLine(), () -> {
            UsageError.checkRanges(this);
            return runtimeUri(url);
        });
        PrintStream out = System.out;
        out.println("time      delay p99 ms  max ms  late now ms  in flight  crypto queued  refused/s  pid");
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()) {
            JsonNode previous = null;
            long next = System.nanoTime();
            for (int line = 1; count == 0 || line <= count; line++) {
                String time = LocalTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
                JsonNode report = read(client, runtime);
                if (report == null) {
                    out.println(time + "  no answer from " + url + " (the server is gone, or not started yet)");
                    previous = null;
                } else if (!report.has("carrierDelay") || !report.has("pid")) {
                    System.err.println("loan-runtime watch: " + url + " answers /runtime, but not as a loan-runtime "
                            + "server does");
                    return 1;
                } else {
                    out.println(time + "  " + line(report, previous));
                    previous = report;
                }
                out.flush();
                next += Duration.ofSeconds(1).toNanos();
                Thread.sleep(Math.max(0, (next - System.nanoTime()) / 1_000_000));
            }
        }
        return 0;
    }

    /** {@code http://host:port} (a path, if any, is replaced) as its {@code /runtime}. */
    static URI runtimeUri(String url) {
        try {
            URI uri = URI.create(url);
            if (!"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
                throw new IllegalArgumentException();
            }
            return URI.create("http://" + uri.getHost() + ":" + uri.getPort() + "/runtime");
        } catch (IllegalArgumentException e) {
            throw UsageError.invalid("URL", "http://HOST:PORT, e.g. http://127.0.0.1:8430", url);
        }
    }

    /** The report, or null when nothing (or not JSON) answered in time. */
    private static JsonNode read(HttpClient client, URI runtime) throws InterruptedException {
        try {
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(runtime).timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofString());
            return answer.statusCode() == 200 ? MAPPER.readTree(answer.body()) : MAPPER.createObjectNode();
        } catch (IOException e) {
            return null;
        }
    }

    /** One line of figures from {@code r}; refusals per second need the line before ({@code previous}). */
    static String line(JsonNode r, JsonNode previous) {
        JsonNode delay = r.path("carrierDelay");
        JsonNode last10s = delay.path("last10s");
        String refused = "-";
        if (previous != null) {
            long now = r.path("overload").path("refusedByLimit").asLong() + r.path("overload").path("shedByDelay")
                    .asLong();
            long before = previous.path("overload").path("refusedByLimit").asLong()
                    + previous.path("overload").path("shedByDelay").asLong();
            refused = Long.toString(Math.max(0, now - before));
        }
        String who = r.path("workerId").asInt() > 0
                ? r.path("pid").asText() + " (worker " + r.path("workerId").asInt() + ")" : r.path("pid").asText();
        return "%12s  %6s  %11s  %9d  %13d  %9s  %s".formatted(ms(last10s.path("p99Ms")), ms(last10s.path("maxMs")),
                ms(delay.path("lateNowMs")), r.path("requestsInFlight").asInt(), r.path("cryptoQueued").asInt(),
                refused, who);
    }

    /** A figure in ms with one decimal, or "-" where the server has none (a monitor off, a window empty). */
    private static String ms(JsonNode value) {
        return value.isNumber() ? "%.1f".formatted(value.asDouble()) : "-";
    }
}
