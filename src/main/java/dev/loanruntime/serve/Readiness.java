package dev.loanruntime.serve;

import io.helidon.health.HealthCheckResponse;
import io.helidon.health.HealthCheckType;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.health.HealthObserver;

import dev.loanruntime.crypto.CryptoPool;
import dev.loanruntime.store.LoanStore;
import dev.loanruntime.store.StoreUnavailableException;

/**
 * {@code /observe/health}: the readiness checks {@code crypto-pool}, {@code store} (down while the shared store does
 * not answer) and {@code drain} (down from {@link #drain()} on, the check a load balancer asks). Any thread.
 */
final class Readiness {
    private final CryptoPool pool;
    private final LoanStore store;
    private volatile boolean draining;

    Readiness(CryptoPool pool, LoanStore store) {
        this.pool = pool;
        this.store = store;
    }

    /** From now on the check {@code drain} is down; returns at once. */
    void drain() {
        draining = true;
    }

    /** Helidon's health observer with the three checks. */
    ObserveFeature feature() {
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
}
