package dev.loanruntime.overload;

/** A heavy request refused because the server is overloaded: 503 {@code overloaded} with Retry-After. */
public final class OverloadedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    OverloadedException(String message) {
        super(message, null, false, false);
    }
}
