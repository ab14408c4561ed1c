package dev.loanruntime.crypto;

/** A derivation failed (the hasher threw, or the pool was shut down under it). */
public final class DerivationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DerivationException(String message, Throwable cause) {
        super(message, cause);
    }
}
