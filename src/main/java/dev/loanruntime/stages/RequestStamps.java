package dev.loanruntime.stages;

import java.util.ArrayList;
import java.util.List;

import dev.loanruntime.crypto.CryptoPool;

/**
 * The points of one request's life, each a {@link System#nanoTime()} on the server's one clock, and the stages
 * between adjacent points. Made at the admitted point ({@link RequestPoints}) on the connection's thread; the
 * handler, the crypto pool and the send listeners add their points from whichever thread they run on (each point is
 * written by one thread, and the hand-offs between them, a pool's submit and get, order the writes). No method blocks.
 *
 * <p>{@link #current()} is the request the calling thread works for: its connection's current request on the
 * connection's thread, and the request a platform handler thread was given ({@link #enter}); a thread that works for
 * no request gets {@link #NONE}, whose stamps go nowhere, so callers need no checks.
 */
public final class RequestStamps implements CryptoPool.Points {
    /** The stamps of no request: stamping them does nothing. */
    public static final RequestStamps NONE = new RequestStamps(false);
    private static final ThreadLocal<RequestStamps> CURRENT = new ThreadLocal<>();
    private static final long ABSENT = Long.MIN_VALUE;

    private final boolean recording;
    /** The connection's accepted and first-ran points, for the first request on a connection only. */
    long accepted = ABSENT;
    long firstRan = ABSENT;
    /** When the previous response on this kept-alive connection was sent, for later requests only. */
    long previousSent = ABSENT;
    long line = ABSENT;
    long headers = ABSENT;
    long admitted = ABSENT;
    private long handler = ABSENT;
    private long cryptoSubmit = ABSENT;
    private long cryptoStart = ABSENT;
    private long cryptoEnd = ABSENT;
    private long resumed = ABSENT;
    long beforeSend = ABSENT;
    long sent = ABSENT;

    RequestStamps() {
        this(true);
    }

    private RequestStamps(boolean recording) {
        this.recording = recording;
    }

    /** The request the calling thread works for, or {@link #NONE}. */
    public static RequestStamps current() {
        RequestStamps stamps = CURRENT.get();
        if (stamps != null) {
            return stamps;
        }
        ConnectionStamps connection = ConnectionStamps.current();
        stamps = connection == null ? null : connection.current;
        return stamps == null ? NONE : stamps;
    }

    /**
     * Makes {@code stamps} the calling thread's request until {@link #leave()}: for a thread other than the
     * connection's.
     */
    public static void enter(RequestStamps stamps) {
        if (stamps.recording) {
            CURRENT.set(stamps);
        }
    }

    /** The calling thread no longer works for a request. */
    public static void leave() {
        CURRENT.remove();
    }

    /** A platform handler thread starts the request's handler (the platform model's {@code queue} ends). */
    public void handlerStarted() {
        if (recording) {
            handler = System.nanoTime();
        }
    }

    /** The handler hands a derivation to the crypto pool. */
    @Override
    public void cryptoSubmitted() {
        if (recording) {
            cryptoSubmit = System.nanoTime();
        }
    }

    /** A crypto pool thread starts the derivation (on that thread). */
    @Override
    public void cryptoStarted() {
        if (recording) {
            cryptoStart = System.nanoTime();
        }
    }

    /** The crypto pool thread is done with the derivation (on that thread). */
    @Override
    public void cryptoEnded() {
        if (recording) {
            cryptoEnd = System.nanoTime();
        }
    }

    /** The handler runs again after the pool's result (for a virtual thread: once it has a carrier again). */
    @Override
    public void resumed() {
        if (recording) {
            resumed = System.nanoTime();
        }
    }

    /** Whether this request is the first one on its connection (so it has {@code carrier} and {@code line}). */
    boolean first() {
        return accepted != ABSENT;
    }

    /** The first point the server saw of this request: accepted for a first request, else its request line. */
    long origin() {
        return first() ? accepted : line;
    }

    /**
     * The stages so far in the order they happen, each a name and nanoseconds; {@code total} last. Before the
     * response is sent, {@code total} ends at {@code beforeSend} and there is no {@code write}.
     */
    List<Span> stages() {
        List<Span> stages = new ArrayList<>(12);
        if (first()) {
            add(stages, Stage.CARRIER, accepted, firstRan);
            add(stages, Stage.LINE, firstRan, line);
        } else {
            add(stages, Stage.IDLE, previousSent, line);
        }
        add(stages, Stage.HEADERS, line, headers);
        add(stages, Stage.ADMIT, headers, admitted);
        add(stages, Stage.QUEUE, admitted, handler);
        long handlerStart = handler != ABSENT ? handler : admitted;
        boolean pooled = cryptoSubmit != ABSENT && cryptoStart != ABSENT && cryptoEnd != ABSENT && resumed != ABSENT;
        if (beforeSend != ABSENT && handlerStart != ABSENT) {
            long away = pooled ? resumed - cryptoSubmit : 0;
            stages.add(new Span(Stage.HANDLER, beforeSend - handlerStart - away));
        }
        if (pooled) {
            add(stages, Stage.CRYPTO_QUEUE, cryptoSubmit, cryptoStart);
            add(stages, Stage.DERIVE, cryptoStart, cryptoEnd);
            add(stages, Stage.RESUME, cryptoEnd, resumed);
        }
        add(stages, Stage.WRITE, beforeSend, sent);
        long end = sent != ABSENT ? sent : beforeSend;
        add(stages, Stage.TOTAL, origin(), end);
        return stages;
    }

    private static void add(List<Span> stages, Stage stage, long from, long to) {
        if (from != ABSENT && to != ABSENT) {
            stages.add(new Span(stage, to - from));
        }
    }

    /** One stage of this request and how long it took. */
    record Span(Stage stage, long nanos) {
    }
}
