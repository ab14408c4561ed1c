package dev.loanruntime.store;

/** The shared store did not answer (stopped, unreachable, timed out, or locked for too long). */
public final class StoreUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String store, Throwable cause) {
        super("store " + store + " is unavailable: " + (cause == null ? "no answer"
                : cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage()), cause);
    }

    /** The store answered but could not give the guarantee asked for, e.g. too few replicas confirmed a write. */
    public StoreUnavailableException(String store, String why) {
        super("store " + store + " is unavailable: " + why);
    }
}
