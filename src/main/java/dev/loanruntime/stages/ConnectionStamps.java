package dev.loanruntime.stages;

/**
 * One connection's points: accepted (on the listener's platform thread), first ran (on the connection's own
 * thread), and the request line and headers of the request being read. Lives in a thread-local of the connection's
 * thread, which reads all its requests' heads and takes their admitted point; only {@link #lastSent} is written
 * from another thread (the platform model's handler thread, which the connection's thread waits for).
 */
final class ConnectionStamps {
    /** Set on the listener's thread by {@link StampingSocketOptions}; inherited by the connection's new thread. */
    static final InheritableThreadLocal<ConnectionStamps> ACCEPTED = new InheritableThreadLocal<>();
    private static final ThreadLocal<ConnectionStamps> OWN = new ThreadLocal<>();

    final long accepted;
    long firstRan = Long.MIN_VALUE;
    long line = Long.MIN_VALUE;
    long headers = Long.MIN_VALUE;
    long lastSent = Long.MIN_VALUE;
    int requests;
    /** The request this connection's thread works for, between its admitted point and its handler's return. */
    RequestStamps current;

    ConnectionStamps(long accepted) {
        this.accepted = accepted;
    }

    /**
     * On the connection's thread when it first runs: takes over the stamps inherited from the listener (so that
     * threads this one starts do not inherit them) and stamps the first run. Null when the connection was not
     * accepted through {@link StampingSocketOptions}.
     */
    static ConnectionStamps firstRun() {
        long now = System.nanoTime();
        ConnectionStamps stamps = ACCEPTED.get();
        ACCEPTED.remove();
        if (stamps != null) {
            stamps.firstRan = now;
            OWN.set(stamps);
        }
        return stamps;
    }

    /** The calling connection thread's stamps, or null on any other thread. */
    static ConnectionStamps current() {
        return OWN.get();
    }

    static void forget() {
        OWN.remove();
    }

    /** At the admitted point: the request whose head was just read, with the connection's points it needs. */
    RequestStamps request(long admitted) {
        RequestStamps r = new RequestStamps();
        if (requests++ == 0) {
            r.accepted = accepted;
            r.firstRan = firstRan;
        } else {
            r.previousSent = lastSent;
        }
        r.line = line;
        r.headers = headers;
        r.admitted = admitted;
        return r;
    }
}
