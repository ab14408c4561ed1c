package dev.loanruntime.store;

/**
 * Where the loan counter lives. May block the calling thread (a shared store does I/O); safe to call from any
 * number of threads at once.
 */
public interface LoanStore extends AutoCloseable {

    /** Adds one loan and returns the count after it. */
    long incrementLoans();

    /** The current count. */
    long loans();

    /** A short description for reports, e.g. {@code local}. */
    String describe();

    @Override
    default void close() {
    }
}
