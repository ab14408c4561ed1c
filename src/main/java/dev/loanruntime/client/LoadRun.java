package dev.loanruntime.client;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Runs one bounded load: a closed loop of {@code concurrency} virtual threads, or an open loop that sends at a fixed
 * rate, each request on its own virtual thread. Blocks the caller until every request has finished.
 *
 * <p>Latencies are recorded in microseconds in one concurrent histogram rather than one per worker: with 10,000
 * workers, 10,000 histograms would take hundreds of megabytes.
 *
 * <p>Open loop: each request's latency is measured from the time it was <em>due</em> ({@code start + i / rate}),
 * not from when it was sent. When the server stalls, requests that fall due meanwhile are sent late or wait for
 * room, and that delay counts; a closed loop would instead send fewer requests during the stall and hide it
 * (coordinated omission).
 *
 * <p>A stop requested while it runs ({@code load} asks on SIGTERM and SIGINT) ends it early as its end would: no new
 * request is sent, those in flight finish (each within the read timeout) and count, and the report covers the time
 * up to then. So a script can run a load until something else is done, then stop it and still read what it measured.
 */
final class LoadRun {
    private static final long HOUR_US = 3_600_000_000L;
    /** How long an open loop at a low rate waits for its next request before it looks at the stop again. */
    private static final long STOP_CHECK_NANOS = 50_000_000L;
    private final LoadConfig config;
    private final Histogram latencies = new ConcurrentHistogram(HOUR_US, 3);
    /** The answers below 400 only: what a 503 that came back at once would otherwise pull down. */
    private final Histogram okLatencies = new ConcurrentHistogram(HOUR_US, 3);
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final LongAdder responses = new LongAdder();
    private final AtomicBoolean stop;

    private LoadRun(LoadConfig config, AtomicBoolean stop) {
        this.config = config;
        this.stop = stop;
    }

    /** Runs the load to its end and returns what it measured. */
    static Measured run(LoadConfig config) throws InterruptedException {
        return run(config, new AtomicBoolean());
    }

    /** Runs the load until its end or until {@code stop} is set, and returns what it measured. */
    static Measured run(LoadConfig config, AtomicBoolean stop) throws InterruptedException {
        LoadRun run = new LoadRun(config, stop);
        try (Requester requester = config.requester()) {
            run.warmUp(requester);
            long cpuStart = processCpuNanos();
            long start = System.nanoTime();
            Progress progress = Progress.onTerminal(System.err, config.duration(), config.requests(),
                    run.okLatencies::getTotalCount, run::failedSoFar);
            try {
                if (config.openLoop()) {
                    run.openLoop(requester, start);
                } else {
                    run.closedLoop(requester, start);
                }
            } finally {
                progress.close();
            }
            long end = System.nanoTime();
            return run.measured(end - start, processCpuNanos() - cpuStart, stop.get());
        }
    }

    /** This process's CPU time so far (user + system, all threads), or -1 where the JVM cannot tell. */
    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
    }

    private void warmUp(Requester requester) throws InterruptedException {
        int n = config.warmupRequests();
        AtomicLong left = new AtomicLong(n);
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < Math.min(n, config.connections()); i++) {
            workers.add(Thread.ofVirtual().start(() -> {
                while (!stop.get() && left.getAndDecrement() > 0) {
                    requester.get(config.path());
                }
            }));
        }
        for (Thread t : workers) {
            t.join();
        }
    }

    private void closedLoop(Requester requester, long start) throws InterruptedException {
        long deadline = config.duration() == null ? Long.MAX_VALUE : start + config.duration().toNanos();
        AtomicLong left = new AtomicLong(config.requests());
        boolean counted = config.duration() == null;
        List<Thread> workers = new ArrayList<>(config.concurrency());
        for (int i = 0; i < config.concurrency(); i++) {
            workers.add(Thread.ofVirtual().start(() -> {
                while (!stop.get() && (counted ? left.getAndDecrement() > 0 : System.nanoTime() < deadline)) {
                    record(requester.get(config.path()));
                }
            }));
        }
        for (Thread t : workers) {
            t.join();
        }
    }

    private void openLoop(Requester requester, long start) throws InterruptedException {
        double intervalNanos = 1e9 / config.rate();
        long stopAt = config.duration() == null ? Long.MAX_VALUE : start + config.duration().toNanos();
        long count = config.duration() == null ? config.requests() : Long.MAX_VALUE;
        Semaphore room = new Semaphore(config.maxInFlight());
        for (long i = 0; i < count && !stop.get(); i++) {
            long due = start + (long) (i * intervalNanos);
            if (due >= stopAt) {
                break;
            }
            for (long wait; (wait = due - System.nanoTime()) > 0 && !stop.get(); ) {
                LockSupport.parkNanos(Math.min(wait, STOP_CHECK_NANOS));
            }
            if (stop.get()) {
                break;
            }
            room.acquire();
            Thread.ofVirtual().start(() -> {
                try {
                    record(requester.get(config.path(), due));
                } finally {
                    room.release();
                }
            });
        }
        room.acquire(config.maxInFlight()); // every request has finished
    }

    private void record(Outcome o) {
        if (o.responded()) {
            responses.increment();
            latencies.recordValue(Math.min(o.micros(), HOUR_US));
        }
        if (o.failed()) {
            errors.computeIfAbsent(o.errorLabel(), k -> new LongAdder()).increment();
        } else {
            okLatencies.recordValue(Math.min(o.micros(), HOUR_US));
        }
    }

    private long failedSoFar() {
        return errors.values().stream().mapToLong(LongAdder::sum).sum();
    }

    private Measured measured(long elapsedNanos, long cpuNanos, boolean stopped) {
        Map<String, Long> counted = new TreeMap<>();
        errors.forEach((label, n) -> counted.put(label, n.sum()));
        long failed = counted.values().stream().mapToLong(Long::longValue).sum();
        long transportErrors = counted.entrySet().stream().filter(e -> !e.getKey().startsWith("status"))
                .mapToLong(Map.Entry::getValue).sum();
        return new Measured(responses.sum() + transportErrors, responses.sum(), failed, counted, elapsedNanos,
                latencies.copy(), okLatencies.copy(), cpuNanos, stopped);
    }

    /**
     * @param requests  requests finished (answered or failed)
     * @param responses requests that got an HTTP response (any status); only these have a latency
     * @param failed    requests without a response or with a status of 400 or more
     * @param errors    failures by kind: "connect", "timeout", "closed", "other", "status 503", ...
     * @param latencies microseconds, of the responses
     * @param okLatencies microseconds, of the responses with a status below 400
     * @param cpuNanos  the CPU time this process (the client) used over the timed run; -1 when unknown
     * @param stopped   a stop was requested before the run's own end
     */
    record Measured(long requests, long responses, long failed, Map<String, Long> errors, long elapsedNanos,
                    Histogram latencies, Histogram okLatencies, long cpuNanos, boolean stopped) {
        double throughput() {
            return elapsedNanos == 0 ? 0 : requests / (elapsedNanos / 1e9);
        }

        /** Answers below 400 per second. */
        double goodput() {
            return elapsedNanos == 0 ? 0 : okLatencies.getTotalCount() / (elapsedNanos / 1e9);
        }
    }
}
