package dev.loanruntime.http;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.helidon.common.buffers.BufferData;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;

/**
 * A deadline for a request's header block: once the request line has arrived, the headers must end within the
 * timeout, or the client gets a JSON 408 and the connection is closed. Only a client that keeps the server waiting
 * for bytes is cut: when the deadline passes while the server cannot run the connection's thread (every carrier
 * busy, e.g. with inline derivations), the check is repeated instead.
 *
 * <p>Why: Helidon 4.5 has no such deadline. Its {@code idle-connection-timeout} interrupts only a connection that
 * is still reading its request line, and the socket read timeout ({@code connection-options.read-timeout}) is not
 * applied to server sockets at all; a client that sends its headers a byte every few seconds (slow loris) would hold
 * its connection forever. The request line itself is bounded by {@code idle-connection-timeout}.
 *
 * <p>{@link #prologue} and {@link #headers} run on the connection's virtual thread and do not block; the sweep
 * runs on one daemon platform thread of its own.
 */
public final class RequestHeadDeadline implements Http1ConnectionListener, AutoCloseable {
    private static final System.Logger LOGGER = System.getLogger(RequestHeadDeadline.class.getName());
    /** How long a virtual thread started by a sweep may take to get a carrier before the server counts as busy. */
    private static final long CARRIER_PROBE_MS = 100;
    private final Duration timeout;
    private final long timeoutNanos;
    private final byte[] answer;
    private final ScheduledThreadPoolExecutor timer;
    /**
     * Every open connection this listener has seen, by the thread that reads it (one per connection). An entry is
     * made at a connection's first request and dropped by the sweep once that thread has ended, so a request costs
     * a lookup and two field writes, not an entry of its own. Keyed by the thread, whose hash is its identity:
     * Helidon's connection context computes its hash from its fields, which costs as much on every request as a put
     * and a remove per request did before.
     */
    private final Map<Thread, Reading> reading = new ConcurrentHashMap<>();

    public RequestHeadDeadline(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("request-head-timeout must be positive, was " + timeout);
        }
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
        this.answer = response(timeout);
        this.timer = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("request-head-deadline").factory());
        // One sweep every tenth of the timeout (at most every second) rather than a task per request: a client is
        // cut at the second sweep that finds it late, between 1.1 and 1.2 timeouts after its request line (later
        // while every carrier is busy).
        long period = Math.min(TimeUnit.SECONDS.toNanos(1), timeoutNanos / 10);
        timer.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.NANOSECONDS);
    }

    public Duration timeout() {
        return timeout;
    }

    @Override
    public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
        Thread thread = Thread.currentThread();
        Reading r = reading.get(thread);
        if (r == null) {
            r = new Reading(thread, ctx);
            reading.put(thread, r);
        }
        r.started(System.nanoTime());
    }

    @Override
    public void headers(ConnectionContext ctx, Headers headers) {
        Reading r = reading.get(Thread.currentThread());
        if (r != null) {
            r.ended();
        }
    }

    /** Runs on the timer's thread: cuts every connection whose headers are late and whose client is the slow one. */
    private void sweep() {
        long now = System.nanoTime();
        reading.values().removeIf(r -> r.thread.getState() == Thread.State.TERMINATED);
        List<Reading> late = reading.values().stream()
                .filter(r -> r.lateAt(now) != Reading.NOT_READING && r.waitingForBytes())
                .toList();
        // A thread that is runnable but has no carrier is skipped above. A parked one may be no better off: on JDK
        // 22 and later the JDK's read pollers are virtual threads too, so while every carrier is busy nothing wakes
        // a connection whose bytes have come. The server is the slow one then, not the client: look again later.
        if (late.isEmpty() || !carrierAnswers()) {
            return;
        }
        for (Reading r : late) {
            long since = r.lateAt(now);
            // Cut at the second sweep that finds the same request late: the carrier just found free may not have
            // run the poller that would wake this connection yet.
            if (since != Reading.NOT_READING && r.seenLate(since) && r.waitingForBytes() && r.cut(since)) {
                reading.remove(r.thread, r);
                expire(r);
            }
        }
    }

    /**
     * Whether a virtual thread started now gets a carrier within {@link #CARRIER_PROBE_MS}. Blocks that long at most.
     */
    private static boolean carrierAnswers() {
        CountDownLatch ran = new CountDownLatch(1);
        Thread.ofVirtual().name("request-head-deadline-probe").start(ran::countDown);
        try {
            return ran.await(CARRIER_PROBE_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void expire(Reading token) {
        ConnectionContext ctx = token.ctx;
        LOGGER.log(System.Logger.Level.DEBUG, () -> "request head not complete after " + timeout + ", closing "
                + ctx.remotePeer().address());
        try {
            ctx.dataWriter().writeNow(BufferData.create(answer));
        } catch (RuntimeException e) {
            // the client may be gone already; closing is what matters
        }
        // Interrupting a thread blocked in a socket read closes the socket: the way Helidon's own idle check ends a
        // connection, and the one that ends it quietly (no 500 attempt, no warning in the log).
        token.thread.interrupt();
    }

    /**
     * One connection's header state. {@code since} is when the current request line arrived, or NOT_READING once
     * its headers ended; the connection's thread writes it, the sweep reads it and compares-and-sets it to cut.
     */
    private final class Reading {
        static final long NOT_READING = Long.MIN_VALUE;
        private static final VarHandle SINCE;

        static {
            try {
                SINCE = MethodHandles.lookup().findVarHandle(Reading.class, "since", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final Thread thread;
        final ConnectionContext ctx;
        @SuppressWarnings("unused") // through SINCE
        private volatile long since = NOT_READING;
        /** The request the sweep found late once already (sweep thread only). */
        private long lateSince = NOT_READING;

        Reading(Thread thread, ConnectionContext ctx) {
            this.thread = thread;
            this.ctx = ctx;
        }

        void started(long now) {
            SINCE.setRelease(this, now);
        }

        void ended() {
            SINCE.setRelease(this, NOT_READING);
        }

        /** The current request's start when its headers are late at {@code now}, else NOT_READING. */
        long lateAt(long now) {
            long s = (long) SINCE.getAcquire(this);
            return s != NOT_READING && now - s >= timeoutNanos ? s : NOT_READING;
        }

        /** True at the second sweep that finds the request that started at {@code since} late. */
        boolean seenLate(long since) {
            boolean seen = lateSince == since;
            lateSince = since;
            return seen;
        }

        /** Takes the request from the connection's thread; false when its headers ended meanwhile. */
        boolean cut(long since) {
            return SINCE.compareAndSet(this, since, NOT_READING);
        }

        /** A virtual thread parked in a socket read is WAITING; one that waits for a carrier is RUNNABLE. */
        boolean waitingForBytes() {
            Thread.State state = thread.getState();
            return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
        }
    }

    private static byte[] response(Duration timeout) {
        byte[] body = Json.bytes(new Json.Error("request_timeout",
                "the request headers did not arrive within " + timeout.toMillis() + " ms"));
        String head = "HTTP/1.1 408 Request Timeout\r\nContent-Type: " + Json.CONTENT_TYPE + "\r\nContent-Length: "
                + body.length + "\r\nConnection: close\r\n\r\n";
        byte[] bytes = new byte[head.length() + body.length];
        System.arraycopy(head.getBytes(StandardCharsets.US_ASCII), 0, bytes, 0, head.length());
        System.arraycopy(body, 0, bytes, head.length(), body.length);
        return bytes;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
