package dev.loanruntime.serve;

import java.net.StandardSocketOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.UnaryOperator;

import io.helidon.config.Config;
import io.helidon.health.HealthCheckResponse;
import io.helidon.health.HealthCheckType;
import io.helidon.metrics.api.FunctionalCounter;
import io.helidon.metrics.api.Gauge;
import io.helidon.metrics.api.Meter;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.metrics.api.MetricsConfig;
import io.helidon.metrics.api.MetricsFactory;
import io.helidon.metrics.api.Tag;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.health.HealthObserver;

import dev.loanruntime.crypto.CryptoPool;
import dev.loanruntime.crypto.Derivations;
import dev.loanruntime.crypto.PasswordHasher;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.http.ClientDisconnects;
import dev.loanruntime.http.ErrorResponses;
import dev.loanruntime.http.RequestHeadDeadline;
import dev.loanruntime.http.RouteIndex;
import dev.loanruntime.loan.BooksService;
import dev.loanruntime.loan.CatalogService;
import dev.loanruntime.loan.LoanService;
import dev.loanruntime.loan.MemberService;
import dev.loanruntime.loan.SessionService;
import dev.loanruntime.overload.Admission;
import dev.loanruntime.overload.DelayGuard;
import dev.loanruntime.runtime.CarrierDelay;
import dev.loanruntime.runtime.Carriers;
import dev.loanruntime.runtime.InFlight;
import dev.loanruntime.runtime.LatencyWindows;
import dev.loanruntime.runtime.Pinning;
import dev.loanruntime.runtime.PlatformHandlers;
import dev.loanruntime.runtime.ThreadModel;
import dev.loanruntime.runtime.VirtualThreadScheduler;
import dev.loanruntime.runtime.WindowClock;
import dev.loanruntime.runtime.WrappedService;
import dev.loanruntime.stages.Recording;
import dev.loanruntime.stages.RequestPoints;
import dev.loanruntime.stages.RequestStamps;
import dev.loanruntime.stages.Stages;
import dev.loanruntime.store.LoanStore;
import dev.loanruntime.store.Pool;
import dev.loanruntime.store.StoreSettings;
import dev.loanruntime.store.StoreUnavailableException;

/**
 * One running loan service: its execution model, its routes and its WebServer. The execution model is decided
 * here and in {@code runtime/}; the routes do not know which thread runs them.
 */
public final class LoanServer implements AutoCloseable {
    private final WebServer server;
    private final CryptoPool pool;
    private final PlatformHandlers handlers;
    private final LoanStore store;
    private final RuntimeService runtime;
    private final RequestHeadDeadline headDeadline;
    private final InFlight inFlight;
    /** The carrier-delay monitor, or null with {@code --carrier-delay off}. */
    private final CarrierDelay delay;
    /** The crypto pool's queue waits (submit to start) and the store pool's waits for a connection, always on. */
    private final LatencyWindows cryptoQueueWaits = new LatencyWindows();
    private final LatencyWindows storePoolWaits = new LatencyWindows();
    /** How long each connection of the store's pool was held: Little's law's W for the pool. */
    private final LatencyWindows storePoolHolds = new LatencyWindows();
    /** Rolls the windows once a second, on a platform thread: the probe cannot while every carrier is held. */
    private final WindowClock windows;
    /** What the heavy routes ask first: the delay guard with {@code --shed-delay}, else everything passes. */
    private final Admission admission;
    /** Requests the listener's concurrency limit ({@code --limit}) refused. */
    private final LongAdder refusedByLimit = new LongAdder();
    private final RouteIndex routes;
    /** The registry {@code /observe/metrics} serves, with the system meters and a Prometheus registry inside. */
    private final MeterRegistry registry = MetricsFactory.getInstance().globalRegistry(MetricsConfig.create());
    private final List<Meter> gauges = new ArrayList<>();
    private volatile boolean draining;

    private LoanServer(ServeOptions options, Config config, Carriers.Observation carriers, PasswordHasher hasher) {
        ClientDisconnects.quiet();
        this.delay = options.carrierDelay() == Recording.ON
                ? CarrierDelay.start(options.threads(), options.carrierDelayResolution())
                : null;
        this.windows = new WindowClock(() -> {
            cryptoQueueWaits.roll();
            storePoolWaits.roll();
            storePoolHolds.roll();
            if (delay != null) {
                delay.roll(cryptoQueueWaits.figures().lastWindow());
            }
        });
        try {
            this.store = options.store().open(new StoreSettings(options.storeReplicas(), options.storePool(),
                    options.storePoolTimeout(), storePoolWaits::record, storePoolHolds::record));
        } catch (RuntimeException e) {
            stopMonitors();     // a store that refuses this server ends the start: its probe must not go on
            throw e;
        }
        int maxRunning = options.maxDerivations() > 0
                ? options.maxDerivations()
                : Derivations.defaultMaxRunning(Runtime.getRuntime().maxMemory(), ScryptCost.LESSON);
        Derivations derivations = new Derivations(hasher, maxRunning, options.cryptoQueue());
        this.pool = new CryptoPool(derivations, options.cryptoThreads(), options.cryptoQueue(),
                RequestStamps::current, cryptoQueueWaits::record);
        this.handlers = options.threads() == ThreadModel.PLATFORM ? new PlatformHandlers(options.platformThreads()) : null;
        this.inFlight = new InFlight();
        DelayGuard guard = options.shedDelay().on() ? new DelayGuard(delay, options.shedDelay().threshold()) : null;
        this.admission = guard != null ? guard : Admission.OPEN;
        this.runtime = new RuntimeService(options, carriers, pool, inFlight, delay, cryptoQueueWaits, guard,
                refusedByLimit, store, storePoolWaits, storePoolHolds);

        WebServerConfig.Builder builder = WebServer.builder()
                .config(config.get("server"))
                .host(options.host())
                .port(options.port());
        // Helidon's HTTP/1.1 limits from server.protocols.http_1_1, plus the header deadline Helidon lacks
        this.headDeadline = new RequestHeadDeadline(options.requestHeadTimeout());
        // Exactly one HTTP/1.1 connection selector: with a second protocol (from the config node or discovery)
        // beside it, Helidon sniffs each connection's first bytes and closes a malformed or HTTP/1.0 one without
        // its JSON 400/505. With --stages on, the stage points wrap that one selector.
        builder.protocolsDiscoverServices(false);
        Http1Config.Builder http1 = Http1Config.builder()
                .name("http_1_1")       // replaces the one Helidon builds from the same node
                .config(config.get("server.protocols.http_1_1"));
        HttpRouting.Builder routing = HttpRouting.builder();
        RequestPoints points = null;
        if (options.stages() == Recording.ON) {
            points = Stages.install(builder, http1, headDeadline, options.serverTiming(),
                    options.logSlowRequests().on() ? Optional.of(options.logSlowRequests().threshold())
                            : Optional.empty());
        } else {
            builder.protocols(List.of(http1.addReceiveListener(headDeadline).build()));
        }
        // The stage points and the in-flight count go around each route's handler, unless the routing has filters
        // anyway (the platform model's hand-off): as soon as there is one, Helidon runs a filter pass per request.
        UnaryOperator<Handler> wrap;
        if (handlers != null) {
            if (points != null) {
                routing.addFilter(points.filter());
            }
            routing.addFilter(inFlight.filter());
            routing.addFilter(handlers);
            wrap = UnaryOperator.identity();
        } else if (points != null) {
            RequestPoints stamping = points;
            wrap = handler -> inFlight.counted(stamping.stamped(handler));
        } else {
            wrap = inFlight::counted;
        }
        this.routes = routes(WrappedService.wrapping(routing, wrap), options);
        ErrorResponses.register(routing);

        options.limit().create(Runtime.getRuntime().availableProcessors()).ifPresent(builder::concurrencyLimit);
        if (options.reusePort()) {
            // Cluster workers: every worker binds the same port and the kernel spreads connections among them.
            builder.putListenerSocketOption(StandardSocketOptions.SO_REUSEPORT, true);
        }
        this.server = builder
                .directHandlers(ErrorResponses.directHandlers(refusedByLimit))
                .addFeature(observe())
                .routing(routing)
                .build();
        registerGauges();
    }

    /**
     * Every route of the service, on {@code rules}, each listed for {@code GET /} and for the warm-up: the one place
     * a route is added. Needs the pool, the store, the runtime report and the registry this server made.
     */
    private RouteIndex routes(HttpRules rules, ServeOptions options) {
        // The services' routes go straight into the routing, not as registered services: Helidon matches a request
        // in a registered service by a second crawl that copies the path's parameters into a new map and decodes the
        // path again, about 1% of /books' throughput on one core. None of them has start or stop hooks.
        RouteIndex index = new RouteIndex(rules);
        for (HttpService service : List.of(new BooksService(), new LoanService(store), new MemberService(pool, admission),
                new SessionService(pool, options.memberCost(), store, options.sessionTtl(), admission),
                new CatalogService(store), runtime, new MetricsEndpoint(registry, options.workerId()))) {
            service.routing(index);
        }
        // Helidon's health observer, added with observe()
        index.describe("GET", "/observe/health", "health: the readiness checks crypto-pool, store and drain; also "
                + "/ready, /live, /started and /check/NAME");
        index.serveAt("/", "loan-runtime");
        return index;
    }

    /**
     * Starts a server. Call {@link Carriers#configure(int)} first, before any virtual thread exists, when the carrier
     * count must change; this method refuses to start when the JVM runs more carriers than asked for.
     *
     * @throws IllegalStateException when the carrier setting did not take effect, or the server cannot listen
     */
    public static LoanServer start(ServeOptions options, Config config) {
        var scrypt = options.scrypt().open();
        scrypt.fallback().ifPresent(why -> System.getLogger(LoanServer.class.getName())
                .log(System.Logger.Level.WARNING, why));
        return start(options, config, scrypt.hasher());
    }

    /** Starts a server whose derivations use {@code hasher}. */
    static LoanServer start(ServeOptions options, Config config, PasswordHasher hasher) {
        Carriers.Observation carriers = Carriers.verify(options.carriers());
        LoanServer loanServer = new LoanServer(options, config, carriers, hasher);
        // Helidon returns instead of throwing, after logging why with a stack trace, which StartFailure keeps for
        // this one line instead.
        Optional<String> failure = StartFailure.during(loanServer.server::start);
        if (!loanServer.server.isRunning()) {
            loanServer.close();
            throw new IllegalStateException("cannot listen on " + options.host() + ":" + options.port()
                    + failure.map(why -> ": " + why).orElse(" (the port is taken, or the address is not this machine's)"));
        }
        return loanServer;
    }

    public int port() {
        return server.port();
    }

    public RuntimeService.Report report() {
        return runtime.report();
    }

    /** The routes {@code GET /} lists, in its order. */
    public List<RouteIndex.Route> routes() {
        return routes.routes();
    }

    /** The requests a warm-up may send: one per route that is cheap and changes nothing. */
    List<String> warmUpTargets() {
        return routes.warmUpTargets();
    }

    /**
     * From now on the readiness check {@code drain} is DOWN, so {@code /observe/health/ready} and
     * {@code /observe/health/check/drain} answer 503, while the server goes on accepting and serving: a load
     * balancer's health check takes it out before {@link #close()} closes its listener. Any thread; returns at once.
     */
    void drain() {
        draining = true;
    }

    /** Stops accepting, lets in-flight requests finish within the listener's grace period, then frees the pools. */
    @Override
    public void close() {
        server.stop();
        pool.close();
        if (handlers != null) {
            handlers.close();
        }
        store.close();
        headDeadline.close();
        stopMonitors();
        gauges.forEach(registry::remove);
    }

    private void stopMonitors() {
        windows.close();
        if (delay != null) {
            delay.close();
        }
    }

    private ObserveFeature observe() {
        HealthObserver health = HealthObserver.builder()
                .details(true)
                .addCheck(() -> HealthCheckResponse.builder()
                                  .status(true)
                                  .detail("threads", pool.threads())
                                  .detail("queued", pool.queued())
                                  .detail("running", pool.derivations().running())
                                  .build(),
                          HealthCheckType.READINESS, "crypto-pool")
                .addCheck(this::storeHealth, HealthCheckType.READINESS, "store")
                // Alone at /observe/health/check/drain: the probe a balancer uses (deploy/haproxy.cfg says why)
                .addCheck(() -> HealthCheckResponse.builder().status(!draining).detail("draining", draining).build(),
                          HealthCheckType.READINESS, "drain")
                .build();
        return ObserveFeature.just(health);
    }

    /** Down while the shared store does not answer; the routes that do not need it keep working meanwhile. */
    private HealthCheckResponse storeHealth() {
        HealthCheckResponse.Builder health = HealthCheckResponse.builder().detail("store", store.describe());
        try {
            store.ping();
            return health.status(true).build();
        } catch (StoreUnavailableException e) {
            return health.status(false).detail("error", "store_unavailable").build();
        }
    }

    private void registerGauges() {
        gauge("loan.crypto.running", "derivations running now, inline or on the crypto pool",
                () -> pool.derivations().running());
        gauge("loan.crypto.queued", "derivations waiting for a crypto pool thread now", pool::queued);
        gauge("loan.counter", "the loan counter in the store (NaN while the store cannot answer at once)",
                this::loansOrNaN);
        gauge("loan.pinned.events", "virtual threads that parked while pinned to their carrier (NaN without the pin "
                + "watch)", () -> pinned(Pinning.Snapshot::events));
        gauge("loan.pinned.longest.ms", "the longest pinned park, in ms (NaN without the pin watch)",
                () -> pinned(Pinning.Snapshot::longestMs));
        gauges.add(registry.getOrCreate(FunctionalCounter.builder("loan.requests", inFlight, InFlight::handled)
                .description("requests handled (Helidon's requests.count is not kept: see MetricsEndpoint)")));
        summary("loan.carrier.delay", "how late the carrier-delay probe woke: the time ready work waited for "
                + "a thread, over the last 10 s (quantile 1: the largest)", () -> runtime.carrierDelay().last10s());
        gauge("loan.carrier.delay.late.now.seconds", "how late the carrier-delay probe is right now: a stall in "
                + "progress, before any window holds it", () -> {
            Double ms = runtime.carrierDelay().lateNowMs();
            return ms == null ? Double.NaN : ms / 1000;
        });
        summary("loan.crypto.queue.wait", "how long derivations waited in the crypto pool's queue, over the "
                + "last 10 s (quantile 1: the largest)", () -> runtime.cryptoQueueWait().last10s());
        gauges.add(registry.getOrCreate(FunctionalCounter.builder("loan.overload.refused", runtime,
                r -> r.overload().refusedByLimit() + r.overload().shedByDelay())
                .description("requests refused with 503 overloaded: by the listener's concurrency limit (--limit) or "
                        + "by the delay guard (--shed-delay)")));
        summary("loan.store.pool.wait", "how long requests waited for a connection of the store's pool "
                + "(PostgreSQL), over the last 10 s (quantile 1: the largest)", () -> runtime.storePool() == null ? null
                : runtime.storePool().waitMs().last10s());
        summary("loan.store.pool.hold", "how long requests held a connection of the store's pool (PostgreSQL), "
                + "over the last 10 s (quantile 1: the longest)", () -> runtime.storePool() == null ? null
                : runtime.storePool().holdMs().last10s());
        gauge("loan.store.pool.active", "connections of the store's pool in use (NaN without a pool)",
                () -> pooled(Pool.Stats::active));
        gauge("loan.store.pool.idle", "connections of the store's pool free (NaN without a pool)",
                () -> pooled(Pool.Stats::idle));
        gauge("loan.store.pool.waiting", "requests waiting for a connection of the store's pool (NaN without a pool)",
                () -> pooled(Pool.Stats::waiting));
        store.pool().ifPresent(p -> gauges.add(registry.getOrCreate(FunctionalCounter.builder(
                "loan.store.pool.timeouts", p, q -> q.stats().timeouts())
                .description("waits for a connection of the store's pool that passed its timeout (each a 503)"))));
        gauge("loan.vthread.scheduler.queued", "the JDK scheduler's estimate of virtual threads queued (JDK 24+)",
                () -> scheduler(VirtualThreadScheduler.Counts::queued));
        gauge("loan.vthread.scheduler.mounted", "the JDK scheduler's estimate of virtual threads mounted (JDK 24+)",
                () -> scheduler(VirtualThreadScheduler.Counts::mounted));
    }

    /**
     * The last 10 s as gauges: NAME.seconds{quantile="0.5"|"0.99"|"1"} and NAME.samples, each NaN while the monitor is
     * off or has no value (not 0: nothing measured is not "no delay"). Gauges, not a Prometheus summary: the window
     * slides, so its count falls as well as rises and has no running sum.
     */
    private void summary(String name, String description, Supplier<LatencyWindows.Summary> last10s) {
        Map<String, Function<LatencyWindows.Summary, Double>> quantiles = new LinkedHashMap<>();
        quantiles.put("0.5", LatencyWindows.Summary::p50Ms);
        quantiles.put("0.99", LatencyWindows.Summary::p99Ms);
        quantiles.put("1", LatencyWindows.Summary::maxMs);
        quantiles.forEach((quantile, figure) -> gauges.add(registry.getOrCreate(Gauge.builder(name + ".seconds", () -> {
            LatencyWindows.Summary s = last10s.get();
            return s == null ? Double.NaN : LatencyWindows.Summary.seconds(figure.apply(s));
        }).description(description).tags(List.of(Tag.create("quantile", quantile))))));
        gauge(name + ".samples", "samples over the last 10 s: " + description, () -> {
            LatencyWindows.Summary s = last10s.get();
            return s == null ? Double.NaN : s.count();
        });
    }

    /** A count of the store's connection pool, or NaN for a store without one. */
    private double pooled(ToDoubleFunction<Pool.Stats> figure) {
        return store.pool().map(p -> figure.applyAsDouble(p.stats())).orElse(Double.NaN);
    }

    /** A count of the JDK's scheduler while the monitor runs on JDK 24+, else NaN. */
    private double scheduler(ToDoubleFunction<VirtualThreadScheduler.Counts> figure) {
        VirtualThreadScheduler.Counts counts = runtime.carrierDelay().scheduler();
        return counts == null ? Double.NaN : figure.applyAsDouble(counts);
    }

    /** A figure of the pin watch, or NaN while none runs (--pin-watch off): not watching is not "nothing pinned". */
    private static double pinned(ToDoubleFunction<Pinning.Snapshot> figure) {
        Pinning.Snapshot pins = Pinning.snapshot();
        return pins.watching() ? figure.applyAsDouble(pins) : Double.NaN;
    }

    /**
     * The counter, or NaN while the store does not answer, or while its pool has no free connection: a scrape must not
     * queue for one behind the requests (and would be refused after the pool's timeout anyway).
     */
    private double loansOrNaN() {
        if (store.pool().map(p -> p.stats().idle() == 0).orElse(false)) {
            return Double.NaN;
        }
        try {
            return store.loans();
        } catch (StoreUnavailableException e) {
            return Double.NaN;
        }
    }

    private void gauge(String name, String description, Supplier<? extends Number> value) {
        gauges.add(registry.getOrCreate(Gauge.builder(name, () -> value.get().doubleValue())
                .description(description)));
    }
}
