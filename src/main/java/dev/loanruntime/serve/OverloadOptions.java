package dev.loanruntime.serve;

import picocli.CommandLine.Option;

import dev.loanruntime.cli.Converters.ConcurrencyLimitConverter;
import dev.loanruntime.cli.Converters.ThresholdConverter;
import dev.loanruntime.cli.UsageError;
import dev.loanruntime.overload.ConcurrencyLimit;
import dev.loanruntime.settings.Switch;
import dev.loanruntime.settings.Threshold;

/** One section of {@link ServeOptions}: the overload protections, Helidon's limit and shedding on the carrier delay. */
public final class OverloadOptions {
    @Option(names = "--limit", defaultValue = "none", paramLabel = "none|fixed:PERMITS[:QUEUE]|aimd",
            converter = ConcurrencyLimitConverter.class,
            description = "Helidon's concurrency limit on the listener (server.concurrency-limit), for every request "
                    + "whatever its route: fixed (permits, and a queue of QUEUE, default 0) or aimd (from one permit "
                    + "per core, up while answers are fast, down when slower than 5 s); past it 503 overloaded "
                    + "(docs/overload.md) (default: ${DEFAULT-VALUE}).")
    private ConcurrencyLimit limit;

    // Off: the bound depends on what the users of the heavy routes can wait; experiment 14 measures a few.
    @Option(names = "--shed-delay", defaultValue = "off", paramLabel = "off|DURATION",
            converter = ThresholdConverter.class,
            description = "Refuse heavy requests (the scrypt routes, login) with 503 overloaded while the carrier "
                    + "delay is over this, e.g. 50ms: the p99 of its last second, or the probe late by more than it "
                    + "now; health, /runtime, metrics and the light routes are never refused. Needs --carrier-delay "
                    + "on (default: ${DEFAULT-VALUE}).")
    private Threshold shedDelay;

    public ConcurrencyLimit limit() {
        return limit;
    }

    public Threshold shedDelay() {
        return shedDelay;
    }

    /** Checks this section's values against {@code observation}, whose carrier delay the shedding reads. */
    void validate(ObservationOptions observation) {
        if (shedDelay.on() && shedDelay.threshold().isZero()) {
            throw UsageError.invalid("--shed-delay", "off or a duration above 0", shedDelay.label());
        }
        if (shedDelay.on() && observation.carrierDelay() != Switch.ON) {
            throw UsageError.invalid("--shed-delay", "off unless --carrier-delay on (it sheds on the carrier delay)",
                    shedDelay.label());
        }
    }
}
