package dev.loanruntime.settings;

/**
 * An option that is on or off: whether a server records its requests' stage points ({@code serve --stages on|off}),
 * watches for pinned virtual threads ({@code --pin-watch}), runs the carrier-delay probe ({@code --carrier-delay}),
 * or speaks HTTP/2 beside HTTP/1.1 ({@code --http2}). The stages are off by default because their points cost CPU on
 * every request (experiment 12 measures how much: docs/request-stages.md); off, the server installs none of them and
 * a {@code Loan-Timing: on} request gets no {@code Server-Timing} header.
 */
public enum Switch implements Labelled {
    ON,
    OFF;

    /** Parses a {@link #label()}, {@code on} or {@code off}; the error names the bad value and the allowed ones. */
    public static Switch parse(String value) {
        return Labelled.find(Switch.class, value)
                .orElseThrow(() -> new IllegalArgumentException("expected on or off but was '" + value + "'"));
    }
}
