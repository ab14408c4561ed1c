package dev.loanruntime.crypto;

/** Thrown at once, instead of queueing, when the crypto pool or the derivation memory bound is full. */
public final class BusyException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String reason;

    BusyException(String reason) {
        super(reason, null, false, false);
        this.reason = reason;
    }

    /** Which bound was full: {@code crypto-queue} or {@code derivation-memory}. */
    public String reason() {
        return reason;
    }
}
