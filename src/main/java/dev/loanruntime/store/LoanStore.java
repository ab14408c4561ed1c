package dev.loanruntime.store;

import java.time.Duration;
import java.util.Optional;

/**
 * Where the state that must survive between requests lives: the loan counter and the members' sessions. Every
 * method may block the calling thread (a shared store does I/O) and is safe to call from any number of threads and
 * processes at once. A shared store that cannot be reached throws {@link StoreUnavailableException}, within its own
 * timeouts (Redis's connect and read timeouts, SQLite's busy timeout, PostgreSQL's connect timeout and the pool's
 * wait: docs/shared-state.md gives each), and works again by itself once the store is back.
 *
 * <p>Sessions are keyed by an opaque key chosen by the caller (the session service passes a digest of the token,
 * so that the store never holds a usable token).
 */
public interface LoanStore extends AutoCloseable {

    /** Adds one loan, atomically, and returns the count after it: no increment is lost or counted twice. */
    long incrementLoans();

    /** The current count. */
    long loans();

    /** Records a session for {@code member} that expires after {@code ttl}. */
    void putSession(String key, String member, Duration ttl);

    /** The member of a live session, or empty when the key is unknown or expired. */
    Optional<String> sessionMember(String key);

    /** Ends a session; unknown keys are ignored. */
    void removeSession(String key);

    /** Checks that the store answers; throws {@link StoreUnavailableException} when it does not. */
    void ping();

    /** The store's pool of database connections, or empty for a store without one (all but PostgreSQL). */
    default Optional<Pool> pool() {
        return Optional.empty();
    }

    /** A short description for reports, e.g. {@code local} or {@code sqlite:loans.db}. */
    String describe();

    @Override
    default void close() {
    }
}
