package dev.loanruntime.serve;

import java.time.Duration;

import picocli.CommandLine.Option;

import dev.loanruntime.cli.Converters.DurationConverter;
import dev.loanruntime.cli.Converters.SwitchConverter;
import dev.loanruntime.cli.Converters.ServerTimingConverter;
import dev.loanruntime.cli.Converters.ThresholdConverter;
import dev.loanruntime.cli.Range;
import dev.loanruntime.cli.UsageError;
import dev.loanruntime.settings.Switch;
import dev.loanruntime.settings.Threshold;
import dev.loanruntime.stages.ServerTiming;

/**
 * One section of {@link ServeOptions}: what the server measures of itself and tells, its request stages, pinned
 * carriers and carrier delay, and the lines they log.
 */
public final class ObservationOptions {
    @Option(names = "--server-timing", defaultValue = "on-request", paramLabel = "WHEN",
            converter = ServerTimingConverter.class,
            description = "When a response carries its request's stages in a Server-Timing header: on-request "
                    + "(only for requests with 'Loan-Timing: on'), always (e.g. for a browser's developer tools; "
                    + "timings reveal internals) or off (default: ${DEFAULT-VALUE}).")
    private ServerTiming serverTiming;

    // Off: the stage points cost a share of /books' throughput, which experiment 12 measures.
    @Option(names = "--stages", defaultValue = "off", paramLabel = "on|off", converter = SwitchConverter.class,
            description = "Stamp each request's stage points (accepted, first run, head read, handler, crypto pool, "
                    + "send) for Server-Timing and JFR; off by default for their cost, which experiment 12 "
                    + "measures (docs/request-stages.md) (default: ${DEFAULT-VALUE}).")
    private Switch stages;

    // On, so that a pinned carrier shows in /runtime without asking; experiment 12 measures what it costs.
    @Option(names = "--pin-watch", defaultValue = "on", paramLabel = "on|off", converter = SwitchConverter.class,
            description = "Watch for virtual threads pinned to their carriers and count them in /runtime and "
                    + "/observe/metrics, through a JFR recording; experiment 12 measures its cost "
                    + "(docs/pinning.md) (default: ${DEFAULT-VALUE}).")
    private Switch pinWatch;

    // On: the one figure that says "the carriers are starved" before the users do; experiment 12 measures its cost.
    @Option(names = "--carrier-delay", defaultValue = "on", paramLabel = "on|off", converter = SwitchConverter.class,
            description = "Measure how late ready work gets to run: a probe thread (virtual, or platform with "
                    + "--threads platform) sleeps --carrier-delay-resolution and records how late it wakes, shown "
                    + "with the crypto pool's queue wait in /runtime, /observe/metrics and JFR; off runs no probe "
                    + "(docs/carrier-delay.md) (default: ${DEFAULT-VALUE}).")
    private Switch carrierDelay;

    @Option(names = "--carrier-delay-resolution", defaultValue = "10ms", paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "How long the carrier-delay probe sleeps between samples, as Node's monitorEventLoopDelay "
                    + "resolution (default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 1000)
    private Duration carrierDelayResolution;

    // Off: a server that pins by design would log a line per request.
    @Option(names = "--log-pinned", defaultValue = "off", paramLabel = "off|DURATION",
            converter = ThresholdConverter.class,
            description = "With --pin-watch on: log one line, with the top of the stack, for each virtual thread "
                    + "that stays pinned to its carrier at least this long, e.g. 20ms; the watch counts the pins "
                    + "whether or not they are logged (default: ${DEFAULT-VALUE}).")
    private Threshold logPinned;

    @Option(names = "--log-slow-requests", defaultValue = "off", paramLabel = "off|DURATION",
            converter = ThresholdConverter.class,
            description = "With --stages on: log one line with the order and durations of the stages of each request "
                    + "that took at least this long, from accepted to sent, e.g. 500ms (default: ${DEFAULT-VALUE}).")
    private Threshold logSlowRequests;

    public ServerTiming serverTiming() {
        return serverTiming;
    }

    public Switch stages() {
        return stages;
    }

    public Switch pinWatch() {
        return pinWatch;
    }

    public Switch carrierDelay() {
        return carrierDelay;
    }

    public Duration carrierDelayResolution() {
        return carrierDelayResolution;
    }

    public Threshold logPinned() {
        return logPinned;
    }

    public Threshold logSlowRequests() {
        return logSlowRequests;
    }

    /** Checks this section's values; errors name the option. */
    void validate() {
        UsageError.checkRanges(this);
        if (logSlowRequests.on() && stages != Switch.ON) {
            throw UsageError.invalid("--log-slow-requests", "off unless --stages on (its lines are the stages)",
                    logSlowRequests.label());
        }
        if (logPinned.on() && pinWatch != Switch.ON) {
            throw UsageError.invalid("--log-pinned", "off unless --pin-watch on (its lines are the pins it sees)",
                    logPinned.label());
        }
    }
}
