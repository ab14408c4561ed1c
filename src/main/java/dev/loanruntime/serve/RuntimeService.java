package dev.loanruntime.serve;

import java.util.List;
import java.util.Map;

import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import dev.loanruntime.crypto.CryptoPool;
import dev.loanruntime.crypto.ScryptProvider;
import dev.loanruntime.http.Json;
import dev.loanruntime.http.Routes;
import dev.loanruntime.overload.DelayGuard;
import dev.loanruntime.monitor.CarrierDelay;
import dev.loanruntime.runtime.Carriers;
import dev.loanruntime.monitor.LatencyWindows;
import dev.loanruntime.monitor.Pinning;
import dev.loanruntime.settings.ThreadModel;
import dev.loanruntime.store.LoanStore;
import dev.loanruntime.store.Pool;

/** {@code GET /runtime}: the execution model this process actually runs, as observed, not as asked for. */
public final class RuntimeService implements HttpService {
    private final ServeOptions options;
    private final Carriers.Observation carriers;
    private final CryptoPool pool;
    private final LoanStore store;
    private final Monitors monitors;

    /** The report of a server run with {@code options}, on {@code carriers}, with its pool, store and monitors. */
    RuntimeService(ServeOptions options, Carriers.Observation carriers, CryptoPool pool, LoanStore store,
                   Monitors monitors) {
        this.options = options;
        this.carriers = carriers;
        this.pool = pool;
        this.store = store;
        this.monitors = monitors;
    }

    /** The store's connection pool now and its waits for a connection, or null for a store without one. Any thread. */
    public StorePool storePool() {
        return store.pool().map(p -> new StorePool(p.stats(), monitors.storePoolWaits.figures(),
                monitors.storePoolHolds.figures())).orElse(null);
    }

    @Override
    public void routing(HttpRules rules) {
        Routes.get(rules, "/runtime", "the execution model this process runs, as observed", this::runtimeHandler);
    }

    private void runtimeHandler(ServerRequest req, ServerResponse res) {
        Json.send(res, report());
    }

    /** The carrier delay as of its last window, or {@link CarrierDelay.Report#OFF}. Any thread. */
    public CarrierDelay.Report carrierDelay() {
        return monitors.carrierDelay();
    }

    /** The crypto pool's queue waits as of the last window. Any thread. */
    public LatencyWindows.Figures cryptoQueueWait() {
        return monitors.cryptoQueueWaits.figures();
    }

    /** The protections against overload in force, and what they refused so far. Any thread. */
    public Overload overload() {
        int cores = Runtime.getRuntime().availableProcessors();
        DelayGuard guard = monitors.guard;
        Double bound = guard == null ? null : (double) options.overload().shedDelay().threshold().toMillis();
        return new Overload(options.overload().limit().label(), options.overload().limit().helidonConfig(cores),
                monitors.refusedByLimit.sum(), bound, guard != null && guard.shedding(), guard == null ? 0
                : guard.shed(), pool.queueCapacity());
    }

    /** A snapshot; safe from any thread. */
    public Report report() {
        var derivations = pool.derivations();
        return new Report(ProcessHandle.current().pid(),
                options.workerId(),
                options.listener().http2() ? List.of("http/1.1", "h2c") : List.of("http/1.1"),
                options.execution().threads().label(),
                carriers.carriers(),
                carriers.source(),
                options.execution().threads() == ThreadModel.PLATFORM ? options.execution().platformThreads() : 0,
                pool.threads(),
                pool.queueCapacity(),
                pool.queued(),
                derivations.running(),
                derivations.waiting(),
                derivations.maxRunning(),
                derivations.hasherName(),
                ScryptProvider.DEFAULT.label(),
                derivations.workspaces(),
                derivations.workspaceBytes(),
                monitors.inFlight.current(),
                Pinning.snapshot(),
                carrierDelay(),
                cryptoQueueWait(),
                overload(),
                storePool(),
                Runtime.version().toString(),
                Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() / (1024 * 1024),
                StartTimeline.steps());
    }

    /**
     * What {@code /runtime} reports; {@code workerId} is 0 outside a cluster; {@code protocols} are those the listener
     * speaks ({@code http/1.1}, and {@code h2c} unless {@code --http2 off}). {@code hasher} is the scrypt provider
     * that derives, {@code scryptDefault} the one {@code --scrypt} gives when unset; {@code scryptWorkspaces} and
     * {@code scryptWorkspaceBytes} are the working buffers the derivation permits keep ({@code reuse} only);
     * {@code pinned} counts the virtual threads that parked while pinned to their carrier, since {@code serve} began
     * watching ({@code watching} is false with {@code --pin-watch off}, and in a server started without {@code serve}).
     * {@code carrierDelay} is how late ready work got to run and {@code cryptoQueueWait} how long derivations waited
     * for a crypto thread, since the start, over the last 10 s and in the last window ({@code carrierDelay.on} false
     * with {@code --carrier-delay off}; the queue waits are always measured). {@code startMs} is this process's start,
     * each step it passed in milliseconds since the process began ({@link StartTimeline}).
     */
    public record Report(long pid,
                         int workerId,
                         List<String> protocols,
                         String threadModel,
                         int carriers,
                         String carriersObservedBy,
                         int platformThreads,
                         int cryptoThreads,
                         int cryptoQueue,
                         int cryptoQueued,
                         int derivationsRunning,
                         int derivationsWaiting,
                         int derivationLimit,
                         String hasher,
                         String scryptDefault,
                         int scryptWorkspaces,
                         long scryptWorkspaceBytes,
                         int requestsInFlight,
                         Pinning.Snapshot pinned,
                         CarrierDelay.Report carrierDelay,
                         LatencyWindows.Figures cryptoQueueWait,
                         Overload overload,
                         StorePool storePool,
                         String javaVersion,
                         int cores,
                         long maxHeapMiB,
                         Map<String, Long> startMs) {
    }

    /**
     * The protections in force: {@code limit} ({@code --limit}) and the Helidon configuration it is
     * ({@code helidonConfig}, empty for none) with the requests it refused; the delay guard's bound
     * ({@code shedDelayMs}, null without {@code --shed-delay}), whether it refuses heavy requests now, and how many it
     * refused; the crypto pool's queue, past which a pooled derivation gets 503 busy.
     */
    public record Overload(String limit, String helidonConfig, long refusedByLimit, Double shedDelayMs,
                           boolean shedding, long shedByDelay, int cryptoQueue) {
    }

    /**
     * The store's connection pool (PostgreSQL): HikariCP's counts now, the waits for a connection and how long each
     * was held (Little's law's W: the pool serves at most size / mean hold a second), since the start, over the last
     * 10 s and in the last window.
     */
    public record StorePool(Pool.Stats pool, LatencyWindows.Figures waitMs, LatencyWindows.Figures holdMs) {
    }
}
