package dev.loanruntime.settings;


/**
 * Whether a server records something at all: its requests' stage points ({@code serve --stages on|off}), or its
 * pinned virtual threads ({@code serve --pin-watch on|off}). The stages are off by default because their points
 * cost CPU on every request (experiment 12 measures how much: docs/request-stages.md); off, the server installs none
 * of them and a {@code Loan-Timing: on} request gets no {@code Server-Timing} header. The pin watch is on by default.
 */
public enum Recording implements Labelled {
    ON,
    OFF;

    /** Parses a {@link #label()}, {@code on} or {@code off}; the error names the bad value and the allowed ones. */
    public static Recording parse(String value) {
        return Labelled.find(Recording.class, value)
                .orElseThrow(() -> new IllegalArgumentException("expected on or off but was '" + value + "'"));
    }
}
