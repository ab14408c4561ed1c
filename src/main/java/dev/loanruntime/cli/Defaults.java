package dev.loanruntime.cli;

import dev.loanruntime.crypto.ScryptCost;

/**
 * The defaults that more than one command shares, each once: where {@code serve} listens is where the measurement
 * clients look, and the lesson's scrypt is what both {@code serve} and {@code derive} run. Compile-time constants, as
 * picocli's annotations need.
 */
public final class Defaults {
    /** {@code serve --host}. */
    public static final String HOST = "127.0.0.1";
    /** {@code serve --port}. */
    public static final String PORT = "8430";
    /** {@code probe --url}, {@code load --url}: the server that {@code serve} starts by default. */
    public static final String URL = "http://" + HOST + ":" + PORT;
    /** {@code serve --scrypt}, {@code derive --scrypt}. */
    public static final String SCRYPT = "reuse";
    /** {@code serve --member-cost}, {@code derive --cost}: the lesson's. */
    public static final String COST = ScryptCost.LESSON_LABEL;

    private Defaults() {
    }
}
