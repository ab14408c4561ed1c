package dev.loanruntime.serve;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

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

    /** The checks by name, in the order they are reported. */
    private Map<String, Supplier<HealthCheckResponse>> checks() {
        Map<String, Supplier<HealthCheckResponse>> checks = new LinkedHashMap<>();
        checks.put("crypto-pool", () -> HealthCheckResponse.builder()
                .status(true)
                .detail("threads", pool.threads())
                .detail("queued", pool.queued())
                .detail("running", pool.derivations().running())
                .build());
        checks.put("store", this::storeHealth);
        // Alone at /observe/health/check/drain: the probe a balancer uses (deploy/haproxy.cfg says why)
        checks.put("drain", () -> HealthCheckResponse.builder().status(!draining).detail("draining", draining)
                .build());
        return checks;
    }

    /** Helidon's health observer with the three checks. */
    ObserveFeature feature() {
        var health = HealthObserver.builder().details(true);
        checks().forEach((name, check) -> health.addCheck(check, HealthCheckType.READINESS, name));
        return ObserveFeature.just(health.build());
    }

    /**
     * The checks run now, for a listener of Helidon's own (the admin port): UP when every check is, with each one's
     * status and data, in the form Helidon's observer answers.
     */
    Report report() {
        List<Check> results = new ArrayList<>();
        checks().forEach((name, check) -> {
            HealthCheckResponse response = check.get();
            results.add(new Check(name, response.status().toString(), response.details()));
        });
        boolean up = results.stream().allMatch(c -> c.status().equals(HealthCheckResponse.Status.UP.toString()));
        return new Report(up ? "UP" : "DOWN", results);
    }

    /** The health of the server: UP or DOWN, and each check. */
    record Report(String status, List<Check> checks) {
        boolean up() {
            return "UP".equals(status);
        }
    }

    /** One check's outcome: its name, UP or DOWN, and what it saw. */
    record Check(String name, String status, Map<String, Object> data) {
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
