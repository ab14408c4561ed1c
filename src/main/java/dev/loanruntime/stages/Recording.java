package dev.loanruntime.stages;

import java.util.Locale;

/**
 * Whether a server records something at all: its requests' stage points ({@code serve --stages on|off}), or its
 * pinned virtual threads ({@code serve --pin-watch on|off}). The stages are off by default because their points
 * cost 5-12% of the cheapest route's throughput on one core (docs/request-stages.md); off, the server installs none
 * of them and a {@code Loan-Timing: on} request gets no {@code Server-Timing} header. The pin watch is on by default.
 */
public enum Recording {
    ON,
    OFF;

    /** The name used on the command line: {@code on} or {@code off}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a {@link #label()}; the error names the bad value and the allowed ones. */
    public static Recording parse(String value) {
        for (Recording recording : values()) {
            if (recording.label().equals(value)) {
                return recording;
            }
        }
        throw new IllegalArgumentException("expected on or off but was '" + value + "'");
    }
}
