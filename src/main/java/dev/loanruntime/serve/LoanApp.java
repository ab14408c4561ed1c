package dev.loanruntime.serve;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

import io.helidon.metrics.api.MeterRegistry;
import io.helidon.metrics.api.MetricsConfig;
import io.helidon.metrics.api.MetricsFactory;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;

import dev.loanruntime.crypto.CryptoPool;
import dev.loanruntime.crypto.Derivations;
import dev.loanruntime.crypto.PasswordHasher;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.http.ErrorResponses;
import dev.loanruntime.http.RouteIndex;
import dev.loanruntime.loan.BooksService;
import dev.loanruntime.loan.CatalogService;
import dev.loanruntime.loan.LoanService;
import dev.loanruntime.loan.MemberService;
import dev.loanruntime.loan.SessionService;
import dev.loanruntime.overload.Admission;
import dev.loanruntime.overload.ConcurrencyLimit;
import dev.loanruntime.overload.StreamLimit;
import dev.loanruntime.runtime.Carriers;
import dev.loanruntime.monitor.InFlight;
import dev.loanruntime.runtime.PlatformHandlers;
import dev.loanruntime.settings.ThreadModel;
import dev.loanruntime.http.WrappedService;
import dev.loanruntime.stages.RequestPoints;
import dev.loanruntime.stages.RequestStamps;
import dev.loanruntime.store.LoanStore;
import dev.loanruntime.store.StoreSettings;

/**
 * The loan service without its listener: the store, the crypto pool, the platform handlers of
 * {@code --threads platform}, the monitors, the metrics, the readiness checks, and the routes that use them, which
 * {@link #routing} puts on any routing: a {@link LoanServer}'s, or a test's that has no socket. {@link #close()}
 * closes what it opened, the last first; so does a constructor that fails half-way.
 */
public final class LoanApp implements AutoCloseable {
    private final ServeOptions options;
    private final LoanStore store;
    private final CryptoPool pool;
    /** The handlers' own platform threads with {@code --threads platform}, else null. */
    private final PlatformHandlers handlers;
    private final Monitors monitors;
    private final RuntimeService runtime;
    private final Readiness readiness;
    /**
     * Done once the listener is up ({@link #listening()}) or at the first scrape, whichever comes first; failed when
     * the app closes before either.
     */
    private final CompletableFuture<Void> listening = new CompletableFuture<>();
    /**
     * The registry {@code /observe/metrics} serves, with the system meters and a Prometheus registry inside. Helidon's
     * metrics are a large part of a start and no request but a scrape needs them: they start on a thread of their
     * own once the listener is up, so that they do not take a CPU from the start (their step in /runtime's startMs
     * says when they were ready), and a scrape waits for them.
     */
    private final CompletableFuture<MeterRegistry> registry = listening.thenApplyAsync(up -> {
        metricsStarted = true;
        return MetricsFactory.getInstance().globalRegistry(MetricsConfig.create());
    }, task -> Thread.ofPlatform().name("metrics-start").daemon().start(task));
    private volatile boolean metricsStarted;
    private final MetricsEndpoint metrics;
    /** What this app opened, the last first. */
    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    /**
     * Opens the store, starts the pools and the monitors of a server run with {@code options}, whose derivations use
     * {@code hasher}, on the carriers observed; may block (a shared store connects).
     *
     * @throws RuntimeException when a part cannot start (the store refuses this process, say); nothing stays open
     */
    public LoanApp(ServeOptions options, Carriers.Observation carriers, PasswordHasher hasher) {
        this.options = options;
        try {
            this.monitors = opened(new Monitors(options));
            StartTimeline.mark("monitors");
            StorageOptions storage = options.storage();
            this.store = opened(storage.store().open(new StoreSettings(storage.storeReplicas(), storage.storePool(),
                    storage.storePoolTimeout(), monitors.storePoolWaits::record, monitors.storePoolHolds::record)));
            StartTimeline.mark("store");
            CryptoOptions crypto = options.crypto();
            int maxRunning = crypto.maxDerivations() > 0
                    ? crypto.maxDerivations()
                    : Derivations.defaultMaxRunning(Runtime.getRuntime().maxMemory(), ScryptCost.LESSON);
            this.pool = opened(new CryptoPool(new Derivations(hasher, maxRunning, crypto.cryptoQueue()),
                    crypto.cryptoThreads(), crypto.cryptoQueue(), RequestStamps::current,
                    monitors.cryptoQueueWaits::record));
            this.handlers = options.execution().threads() == ThreadModel.PLATFORM
                    ? opened(new PlatformHandlers(options.execution().platformThreads())) : null;
            this.runtime = new RuntimeService(options, carriers, pool, store, monitors);
            this.readiness = new Readiness(pool, store);
            CompletableFuture<ServerMetrics> meters = registry.thenApply(r -> {
                ServerMetrics registered = new ServerMetrics(r, pool, store, runtime, monitors.inFlight);
                StartTimeline.mark("metrics");
                return registered;
            });
            AutoCloseable unregister = () -> {  // once they are registered: a stop during the start waits for it
                listening.completeExceptionally(new CancellationException("closed before the metrics started"));
                ServerMetrics registered = meters.exceptionally(failed -> null).join();
                if (registered != null) {
                    registered.close();
                }
            };
            opened(unregister);
            // a scrape waits for this server's meters too, not only for the registry
            CompletableFuture<MeterRegistry> withMeters = meters.handle((registered, failed) -> null)
                    .thenCompose(done -> registry);
            this.metrics = new MetricsEndpoint(withMeters, this::listening, options.workerId());
        } catch (RuntimeException | Error e) {
            close(e);       // a part that failed ends the start: the parts before it must not live on
            throw e;
        }
    }

    /** The listener is up: what the start put off (the metrics) starts now. Any thread; once is enough. */
    void listening() {
        listening.complete(null);
    }

    /** Whether the metrics' start has begun (once the listener is up, or at a scrape that came first). */
    boolean metricsStarted() {
        return metricsStarted;
    }

    private <T extends AutoCloseable> T opened(T resource) {
        opened.push(resource);
        return resource;
    }

    /**
     * Puts every route and the error handlers on {@code routing}, with the execution model around them: the stage
     * points when {@code points} is not null ({@code --stages on}), the in-flight count, the platform hand-off.
     * Returns the routes, as {@code GET /} lists them.
     */
    public RouteIndex routing(HttpRouting.Builder routing, RequestPoints points) {
        RouteIndex routes = routes(WrappedService.wrapping(routing, threadModel(routing, points)));
        ErrorResponses.register(routing);
        return routes;
    }

    /**
     * The execution model around each route's handler: the stage points (when {@code points} is not null) and the
     * in-flight count wrap the handler itself, unless the routing has filters anyway (the platform model's hand-off
     * to the handlers' platform threads): as soon as there is one, Helidon runs a filter pass per request. Returns
     * the wrapper.
     */
    private UnaryOperator<Handler> threadModel(HttpRouting.Builder routing, RequestPoints points) {
        InFlight inFlight = monitors.inFlight;
        // HTTP/2 streams the listener's limit refused reach the routing marked (StreamLimit): answered first
        boolean streamsLimited = options.listener().http2()
                && !options.overload().limit().equals(ConcurrencyLimit.NONE);
        if (handlers != null) {
            if (streamsLimited) {
                routing.addFilter(StreamLimit.refusing(monitors.refusedByLimit));
            }
            if (points != null) {
                routing.addFilter(points.filter());
            }
            routing.addFilter(inFlight.filter());
            routing.addFilter(handlers);
            return UnaryOperator.identity();
        }
        UnaryOperator<Handler> counted = points == null ? inFlight::counted
                : handler -> inFlight.counted(points.stamped(handler));
        return streamsLimited ? handler -> StreamLimit.refusing(counted.apply(handler), monitors.refusedByLimit)
                : counted;
    }

    /**
     * Every route of the service, on {@code rules}, each listed for {@code GET /} and for the warm-up: the one place
     * a route is added. Needs the pool, the store, the runtime report and the registry this app made.
     */
    private RouteIndex routes(HttpRules rules) {
        // The services' routes go straight into the routing, not as registered services: Helidon matches a request
        // in a registered service by a second crawl that copies the path's parameters into a new map and decodes the
        // path again, work on every request. None of them has start or stop hooks.
        RouteIndex index = new RouteIndex(rules);
        Admission admission = monitors.admission();
        for (HttpService service : List.of(new BooksService(), new LoanService(store),
                new MemberService(pool, admission),
                new SessionService(pool, options.crypto().memberCost(), store, options.storage().sessionTtl(),
                        admission),
                new CatalogService(store), runtime, metrics)) {
            service.routing(index);
        }
        // Helidon's health observer, added with readiness.feature()
        index.describe("GET", "/observe/health", "health: the readiness checks crypto-pool, store and drain; also "
                + "/ready, /live, /started and /check/NAME");
        index.serveAt("/", "loan-runtime");
        return index;
    }

    Monitors monitors() {
        return monitors;
    }

    Readiness readiness() {
        return readiness;
    }

    public RuntimeService.Report report() {
        return runtime.report();
    }

    MetricsEndpoint metrics() {
        return metrics;
    }

    /** Closes what the app opened, the last first. */
    @Override
    public void close() {
        close(null);
    }

    /** Closes what the app opened, the last first; what one close throws goes on {@code failure}, or is thrown. */
    private void close(Throwable failure) {
        RuntimeException thrown = null;
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (Exception e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else if (thrown == null) {
                    thrown = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                } else {
                    thrown.addSuppressed(e);
                }
            }
        }
        if (thrown != null) {
            throw thrown;
        }
    }
}
