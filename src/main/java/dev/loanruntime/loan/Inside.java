package dev.loanruntime.loan;

import java.util.concurrent.locks.ReentrantLock;

import dev.loanruntime.settings.Labelled;
import dev.loanruntime.store.Pool;

/**
 * Where {@code /catalog/lookup?inside=...} waits: the ways real code waits, which differ only in whether a virtual
 * thread can leave its carrier meanwhile. Each {@link #await} runs on the request's thread and blocks it for the wait;
 * only {@link #DB} uses the store's connection pool.
 */
enum Inside implements Labelled {
    /** A plain sleep: a virtual thread unmounts and frees its carrier. */
    NONE {
        @Override
        void await(int ms, Pool pool) throws InterruptedException {
            Thread.sleep(ms);
        }
    },
    /**
     * A sleep inside {@code synchronized} on an object of this request's own, so nothing contends: on JDK 21 to 23
     * the virtual thread cannot unmount while it holds a monitor and keeps its carrier (JEP 491 ended that in 24).
     */
    MONITOR {
        @Override
        void await(int ms, Pool pool) throws InterruptedException {
            Object monitor = new Object();
            // Published, so that the JIT cannot prove the object local and remove the lock (lock elision).
            lastMonitor = monitor;
            synchronized (monitor) {
                Thread.sleep(ms);
            }
        }
    },
    /** The same sleep under a {@link ReentrantLock}: a parked virtual thread holding one unmounts on every JDK. */
    LOCK {
        @Override
        void await(int ms, Pool pool) throws InterruptedException {
            ReentrantLock lock = new ReentrantLock();
            lastMonitor = lock;
            lock.lock();
            try {
                Thread.sleep(ms);
            } finally {
                lock.unlock();
            }
        }
    },
    /**
     * A sleep below a native frame ({@link NativeWait}): libc calls back into Java, which sleeps. A virtual thread
     * cannot unmount across a native frame on any JDK, so it keeps its carrier.
     */
    NATIVE {
        @Override
        void await(int ms, Pool pool) throws InterruptedException {
            NativeWait.sleep(ms);
        }
    },
    /**
     * A wait done by the database, {@code SELECT pg_sleep}, over a connection of the store's pool (PostgreSQL only):
     * first the wait for a free connection, then the database's; pgjdbc's socket I/O parks a virtual thread.
     */
    DB {
        @Override
        void await(int ms, Pool pool) {
            pool.sleep(ms);
        }

        @Override
        boolean needsPool() {
            return true;
        }
    };

    @SuppressWarnings("unused") // written only: its one reader would be the JIT's escape analysis
    private static volatile Object lastMonitor;

    /**
     * Blocks the calling thread for {@code ms} milliseconds in this way; {@code pool} is null unless
     * {@link #needsPool}.
     */
    abstract void await(int ms, Pool pool) throws InterruptedException;

    /** Whether this wait needs the store's connection pool. */
    boolean needsPool() {
        return false;
    }

    /**
     * Parses a {@link #label()}, the name in the query: {@code none}, {@code monitor}, {@code lock}, {@code native},
     * {@code db};
     * the error names the bad value and the accepted ones.
     */
    static Inside parse(String value) {
        return Labelled.find(Inside.class, value).orElseThrow(() -> new IllegalArgumentException(
                "query parameter 'inside' must be one of " + Labelled.labels(Inside.class) + ", was '" + value + "'"));
    }
}
