package dev.loanruntime.overload;

/**
 * Whether a heavy request may start its work: asked on the request's thread, first thing in each heavy route
 * (the scrypt routes and the login). Health, {@code /runtime}, metrics and the light routes never ask.
 */
@FunctionalInterface
public interface Admission {
    /** Admits everything. */
    Admission OPEN = () -> { };

    /**
     * Returns when the request may go on.
     *
     * @throws OverloadedException when it may not
     */
    void admit();
}
