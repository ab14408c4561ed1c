package dev.loanruntime.store;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * State in this process's memory: every process of a cluster has its own counter and its own sessions, so the
 * counters diverge and a session is known only to the process that created it. Never blocks.
 */
public final class LocalLoanStore implements LoanStore {
    /** Sessions beyond which expired ones are swept on the next login. */
    private static final int SWEEP_ABOVE = 10_000;
    private final AtomicLong loans = new AtomicLong();
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();

    @Override
    public long incrementLoans() {
        return loans.incrementAndGet();
    }

    @Override
    public long loans() {
        return loans.get();
    }

    @Override
    public void putSession(String key, String member, Duration ttl) {
        long now = System.nanoTime();
        if (sessions.size() > SWEEP_ABOVE) {
            sessions.values().removeIf(session -> session.expiredAt(now));
        }
        sessions.put(key, new Session(member, now + ttl.toNanos()));
    }

    @Override
    public Optional<String> sessionMember(String key) {
        Session session = sessions.get(key);
        if (session == null) {
            return Optional.empty();
        }
        if (session.expiredAt(System.nanoTime())) {
            sessions.remove(key, session);
            return Optional.empty();
        }
        return Optional.of(session.member());
    }

    @Override
    public void removeSession(String key) {
        sessions.remove(key);
    }

    @Override
    public void ping() {
        // memory is always there
    }

    @Override
    public String describe() {
        return "local";
    }

    private record Session(String member, long expiresAtNanos) {
        boolean expiredAt(long now) {
            return now - expiresAtNanos >= 0;
        }
    }
}
