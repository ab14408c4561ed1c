package dev.loanruntime.serve;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import io.helidon.metrics.api.FunctionalCounter;
import io.helidon.metrics.api.Gauge;
import io.helidon.metrics.api.Meter;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.metrics.api.Tag;

import dev.loanruntime.crypto.CryptoPool;
import dev.loanruntime.monitor.InFlight;
import dev.loanruntime.monitor.LatencyWindows;
import dev.loanruntime.monitor.Pinning;
import dev.loanruntime.monitor.VirtualThreadScheduler;
import dev.loanruntime.store.LoanStore;
import dev.loanruntime.store.Pool;
import dev.loanruntime.store.StoreUnavailableException;

/**
 * The service's own meters in the registry {@code /observe/metrics} serves: the crypto pool, the counter, the pin
 * watch, the requests, the carrier delay and the queue waits over the last 10 s, the overload refusals, the store's
 * pool and the JDK scheduler. Each reads its figure when scraped; none blocks (the counter reads NaN rather than queue
 * for a connection). {@link #close()} removes them.
 */
final class ServerMetrics implements AutoCloseable {
    private final MeterRegistry registry;
    private final CryptoPool pool;
    private final LoanStore store;
    private final RuntimeService runtime;
    private final List<Meter> gauges = new ArrayList<>();

    /**
     * Registers the meters of the server that has {@code pool}, {@code store}, {@code runtime} and {@code inFlight}.
     */
    ServerMetrics(MeterRegistry registry, CryptoPool pool, LoanStore store, RuntimeService runtime, InFlight inFlight) {
        this.registry = registry;
        this.pool = pool;
        this.store = store;
        this.runtime = runtime;
        register(inFlight);
    }

    /** Removes this server's meters from the registry. */
    @Override
    public void close() {
        gauges.forEach(registry::remove);
        gauges.clear();
    }

    private void register(InFlight inFlight) {
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
