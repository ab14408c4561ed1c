package dev.loanruntime.testing;

/**
 * Names of what test classes share and must not use at the same time when JUnit runs classes in parallel
 * (junit-platform.properties), for {@code @ResourceLock}.
 */
public final class Locks {
    /**
     * Helidon's global meter registry: every server in the test JVM registers its meters there, and one server's
     * close removes meters another one's test reads.
     */
    public static final String GLOBAL_METER_REGISTRY = "dev.loanruntime.helidon-global-meter-registry";

    private Locks() {
    }
}
