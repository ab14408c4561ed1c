package dev.loanruntime.serve;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.metrics.api.MeterRegistryFormatter;
import io.helidon.metrics.api.MetricsConfig;
import io.helidon.metrics.api.SystemTagsManager;
import io.helidon.metrics.spi.MeterRegistryFormatterProvider;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import dev.loanruntime.http.Json;
import dev.loanruntime.http.Routes;

/**
 * {@code GET /observe/metrics}: every meter of the registry in the Prometheus text format, with Helidon's own
 * formatter and its {@code scope} and {@code name} filters.
 *
 * <p>Why not Helidon's {@code MetricsObserver}: besides its endpoint it adds a filter to every request that counts
 * the request in a {@code requests.count} meter and, to do so, creates the request's {@code Context}: work on every
 * request that the cheapest route would pay for. {@code loan.requests} counts requests instead (see
 * {@code InFlight}). Runs on the request's thread; formatting reads the meters and does not block.
 */
final class MetricsEndpoint implements HttpService {
    private static final Pattern QUANTILE = Pattern.compile("quantile=\"([0-9.]+)\"");
    /** What a scrape needs, made where the registry is: off the start's path (see {@code LoanApp}). */
    private final CompletableFuture<Scrape> scrape;

    /** {@code worker="N"} in a cluster's worker N, empty elsewhere. */
    private final String workerLabel;

    /** Starts the registry now if the start has not yet: a routing without a listener has no start to wait for. */
    private final Runnable startNow;

    /**
     * The endpoint of {@code registry}, once it is made (a scrape before then runs {@code startNow} and waits for
     * it); {@code workerId} above 0 labels every sample with the worker.
     */
    MetricsEndpoint(CompletableFuture<MeterRegistry> registry, Runnable startNow, int workerId) {
        this.startNow = startNow;
        // Formatters for several media types (JSON, Prometheus text) are on the class path; each says if it serves one.
        this.scrape = registry.thenApply(r -> new Scrape(r, MetricsConfig.create(),
                SystemTagsManager.instance().scopeTagName(), ServiceLoader.load(MeterRegistryFormatterProvider.class)
                        .stream().map(ServiceLoader.Provider::get).toList()));
        this.workerLabel = workerId > 0 ? "worker=\"" + workerId + "\"" : "";
    }

    @Override
    public void routing(HttpRules rules) {
        Routes.get(rules, "/observe/metrics", "every meter in the Prometheus text format; ?name= and ?scope= "
                + "choose", this::metrics);
    }

    private void metrics(ServerRequest req, ServerResponse res) {
        Optional<String> text = text(req.query().all("scope", List::of), req.query().all("name", List::of));
        if (text.isEmpty()) {
            Json.send(res, Status.NOT_FOUND_404, new Json.Error("metric_not_found", "no meter matches the query"));
            return;
        }
        res.header(HeaderNames.CONTENT_TYPE, CONTENT_TYPE);
        res.send(text.get());
    }

    /** The content type of the scrape: Prometheus text, version 0.0.4. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /**
     * The meters of {@code scopes} named {@code names} (every one when a list is empty) as Prometheus text, sorted and
     * labelled as {@link #tidied} says; empty when no meter matches. Any thread: it reads the meters and does not
     * block.
     */
    Optional<String> text(List<String> scopes, List<String> names) {
        startNow.run();
        Scrape s = scrape.join();
        return s.formatters().stream()
                .flatMap(f -> f.formatter(MediaTypes.TEXT_PLAIN, s.config(), s.registry(), s.scopeTag(), scopes, names)
                        .stream())
                .findFirst()
                .flatMap(MeterRegistryFormatter::format)
                .map(text -> tidied(text.toString(), workerLabel));
    }

    private record Scrape(MeterRegistry registry, MetricsConfig config, Optional<String> scopeTag,
                          List<MeterRegistryFormatterProvider> formatters) {
    }

    /**
     * Prometheus {@code text}, read once: each run of samples of one name that carry a {@code quantile} label sorted by
     * it (Micrometer writes a family's children in the hash order of their tags: 0.5, 1, 0.99), and every sample line
     * with {@code label} first among its labels (a scrape through the cluster's one {@code SO_REUSEPORT} port reaches
     * one worker at random, and says which); an empty {@code label} adds none.
     */
    static String tidied(String text, String label) {
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        int i = 0;
        while (i < lines.size()) {
            String name = sampleName(lines.get(i));
            int j = i;
            while (name != null && j < lines.size() && name.equals(sampleName(lines.get(j)))
                    && QUANTILE.matcher(lines.get(j)).find()) {
                j++;
            }
            if (j - i > 1) {
                lines.subList(i, j).sort(Comparator.comparingDouble(MetricsEndpoint::quantile));
            }
            i = Math.max(j, i + 1);
        }
        StringBuilder out = new StringBuilder(text.length() + (label.isEmpty() ? 0 : text.length() / 4));
        for (String line : lines) {
            int brace = line.indexOf('{');
            int space = line.indexOf(' ');
            if (label.isEmpty() || line.isEmpty() || line.startsWith("#") || space < 0) {
                out.append(line);
            } else if (brace >= 0 && brace < space) {
                out.append(line, 0, brace + 1).append(label).append(',').append(line, brace + 1, line.length());
            } else {
                out.append(line, 0, space).append('{').append(label).append('}').append(line, space, line.length());
            }
            out.append('\n');
        }
        out.setLength(out.length() - 1);    // the split's last piece had no newline after it
        return out.toString();
    }

    /** The metric name of a sample line; null for a comment or a blank line. */
    private static String sampleName(String line) {
        if (line.isEmpty() || line.startsWith("#")) {
            return null;
        }
        int end = line.indexOf('{');
        return line.substring(0, end >= 0 ? end : Math.max(0, line.indexOf(' ')));
    }

    private static double quantile(String line) {
        Matcher m = QUANTILE.matcher(line);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }
}
