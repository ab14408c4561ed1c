package dev.loanruntime.stages;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * What a stage point costs on this machine: every point is one {@link System#nanoTime()}, about 25 ns on a TSC or
 * kvm-clock clock source, but some machines' kernels fall back to a slow one (hpet, acpi_pm) where a call takes
 * 0.5 to 1 µs, and a request's dozen points then cost more than the request. Measured once when the stages are
 * switched on; a slow clock is reported by a warning line. Runs on the thread that builds the server; takes a few
 * milliseconds.
 */
final class ClockCheck {
    /** Above this a request's dozen points cost more than a microsecond. */
    static final double SLOW_NANOS = 100;
    private static final Path CLOCK_SOURCE =
            Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    private static final System.Logger LOGGER = System.getLogger(Stages.class.getName());

    private ClockCheck() {
    }

    /** Measures the clock and logs a warning when it is slow. */
    static void run() {
        warning(clockSource(), nanosPerCall()).ifPresent(w -> LOGGER.log(System.Logger.Level.WARNING, w));
    }

    /** The warning for a clock that costs {@code nanos} per call, or none when it is fast enough. */
    static Optional<String> warning(Optional<String> source, double nanos) {
        if (nanos <= SLOW_NANOS) {
            return Optional.empty();
        }
        return Optional.of("System.nanoTime() takes %.0f ns here (clock source %s): with --stages on each request's "
                .formatted(nanos, source.orElse("unknown"))
                + "dozen stage points cost about %.1f µs; a TSC clock source takes about 25 ns".formatted(nanos * 12 / 1000));
    }

    /** The kernel's clock source on Linux, if the file is there. */
    static Optional<String> clockSource() {
        try {
            return Optional.of(Files.readString(CLOCK_SOURCE).strip());
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** The median over 5 batches of the time one call takes, after a batch to warm up. */
    static double nanosPerCall() {
        int calls = 20_000;
        double[] batches = new double[5];
        for (int b = -1; b < batches.length; b++) {
            long start = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                System.nanoTime(); // a call the JIT keeps: it reads the clock
            }
            if (b >= 0) {
                batches[b] = (double) (System.nanoTime() - start) / calls;
            }
        }
        Arrays.sort(batches);
        return batches[batches.length / 2];
    }
}
