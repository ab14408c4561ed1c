package dev.loanruntime.serve;

import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

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
 * the request in a {@code requests.count} meter and, to do so, creates the request's {@code Context}; on one core
 * that filter alone took 12-15% of {@code /books} throughput. {@code loan.requests} counts requests instead (see
 * {@code InFlight}). Runs on the request's thread; formatting reads the meters and does not block.
 */
final class MetricsEndpoint implements HttpService {
    private static final Optional<String> SCOPE_TAG = SystemTagsManager.instance().scopeTagName();
    private final MeterRegistry registry;
    private final MetricsConfig config = MetricsConfig.create();
    /** Formatters for several media types (JSON, Prometheus text) are on the class path; each says if it serves one. */
    private final List<MeterRegistryFormatterProvider> formatters = ServiceLoader
            .load(MeterRegistryFormatterProvider.class).stream().map(ServiceLoader.Provider::get).toList();

    MetricsEndpoint(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void routing(HttpRules rules) {
        Routes.get(rules, "/observe/metrics", "every meter in the Prometheus text format; ?name= and ?scope= "
                + "choose", this::metrics);
    }

    private void metrics(ServerRequest req, ServerResponse res) {
        List<String> scopes = req.query().all("scope", List::of);
        List<String> names = req.query().all("name", List::of);
        Optional<Object> text = formatters.stream()
                .flatMap(f -> f.formatter(MediaTypes.TEXT_PLAIN, config, registry, SCOPE_TAG, scopes, names).stream())
                .findFirst()
                .flatMap(MeterRegistryFormatter::format);
        if (text.isEmpty()) {
            Json.send(res, Status.NOT_FOUND_404, new Json.Error("metric_not_found", "no meter matches the query"));
            return;
        }
        res.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
        res.send(text.get().toString());
    }
}
