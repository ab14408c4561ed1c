package dev.loanruntime.monitor;

import java.time.Duration;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import dev.loanruntime.settings.ThreadModel;

/**
 * The carrier delay: how late ready work gets to run, always on. A probe thread sleeps one resolution interval (10 ms
 * by default, as Node's {@code monitorEventLoopDelay}) and records how late it woke, from the instant its sleep was
 * due, in {@link LatencyWindows} (with the samples a stall swallowed filled in). In the virtual-thread models the probe
 * is a virtual thread, so its lateness is timer slack plus the time a ready virtual thread waits for a carrier: all
 * carriers held by work that does not park show here as the length of that work. Under {@code --threads platform} it
 * is a platform thread, and its lateness is the OS scheduler's delay, the same question for that model.
 *
 * <p>Beside it, on JDK 24+, the scheduler's own queued and mounted counts. The server's {@link WindowClock} ends a
 * window once a second ({@link #roll}), which commits one {@code dev.loanruntime.CarrierDelay} JFR event: not the
 * probe, which cannot run while every carrier is held. A stall the probe is in shows at once as {@link #stalledNanos()}
 * ({@code lateNowMs}), and in the windows when the probe wakes. One monitor per server; {@link #close()} stops its
 * probe. {@link #report()} is safe from any thread and never blocks.
 */
public final class CarrierDelay implements AutoCloseable {
    private static final System.Logger LOGGER = System.getLogger(CarrierDelay.class.getName());
    /** The probe's thread name. */
    public static final String PROBE = "carrier-delay-probe";

    private final ThreadModel model;
    private final long resolution;
    private final LatencyWindows delays = new LatencyWindows();
    private final Thread probe;
    /** When the probe's current sleep falls due (nanoTime): written by the probe before it sleeps. */
    private volatile long due;
    /** The probe's largest lateness in the window not yet ended: written by the probe, reset by {@link #roll}. */
    private volatile long windowMax;
    private volatile boolean closed;
    /** The JFR event of the window not yet ended, begun when it began: it spans its window. The clock's thread only. */
    private WindowEvent window = new WindowEvent();

    private CarrierDelay(ThreadModel model, Duration resolution) {
        this.model = model;
        this.resolution = resolution.toNanos();
        this.due = System.nanoTime() + this.resolution;
        Thread.Builder builder = model == ThreadModel.PLATFORM ? Thread.ofPlatform().daemon() : Thread.ofVirtual();
        this.probe = builder.name(PROBE).unstarted(this::run);
        window.begin();
    }

    /**
     * Starts a probe of {@code model}'s kind of thread, sleeping {@code resolution} at a time; returns at once. The
     * probe needs no carrier before its first wake, so a server may start it before it listens.
     */
    public static CarrierDelay start(ThreadModel model, Duration resolution) {
        CarrierDelay monitor = new CarrierDelay(model, resolution);
        monitor.probe.start();
        return monitor;
    }

    /** On the probe thread: sleep, record the lateness, until closed. */
    private void run() {
        while (!closed) {
            long due = System.nanoTime() + resolution;
            this.due = due;
            try {
                Thread.sleep(Duration.ofNanos(resolution));
            } catch (InterruptedException e) {
                return;     // closed
            }
            long late = System.nanoTime() - due;
            delays.recordLateness(late, resolution);
            if (late > windowMax) {
                windowMax = late;
            }
        }
    }

    /** Ends the window and commits its JFR event, for a process without a crypto pool (the agent's). */
    public void roll() {
        roll(LatencyWindows.Summary.EMPTY);
    }

    /**
     * Ends the window and commits its JFR event, with {@code cryptoQueue}, the crypto pool's queue waits of the same
     * window. On the {@link WindowClock}'s thread only.
     */
    public void roll(LatencyWindows.Summary cryptoQueue) {
        delays.roll();
        windowMax = 0;      // a wake recorded since is in the next window; one just before it, in this one's p99
        WindowEvent event = window;
        window = new WindowEvent();
        window.begin();
        if (event.isEnabled()) {
            LatencyWindows.Summary d = delays.figures().lastWindow();
            LatencyWindows.Summary q = cryptoQueue;
            event.thread = threadKind();
            event.resolution = resolution;
            event.samples = d.count();
            event.p50 = nanos(d.p50Ms());
            event.p99 = nanos(d.p99Ms());
            event.max = nanos(d.maxMs());
            event.cryptoQueueWaits = q.count();
            event.cryptoQueueWaitP99 = nanos(q.p99Ms());
            event.cryptoQueueWaitMax = nanos(q.maxMs());
            event.commit();
        }
    }

    private static long nanos(Double ms) {
        return ms == null ? 0 : Math.round(ms * 1e6);
    }

    /**
     * How late the probe is right now: how long ago its sleep fell due, when it has not run since (0 when it is not
     * late). A stall shows here while it lasts, before any window has it. Any thread.
     */
    public long stalledNanos() {
        long late = System.nanoTime() - due;
        return late > 0 ? late : 0;
    }

    /**
     * The probe's largest lateness in the window that has not ended yet, in nanoseconds: a stall that ended a moment
     * ago, before any window has it. Any thread.
     */
    public long currentWindowMaxNanos() {
        return windowMax;
    }

    /** The p99 of the last one-second window, in nanoseconds; 0 before the first. Any thread. */
    public long lastWindowP99Nanos() {
        return nanos(delays.figures().lastWindow().p99Ms());
    }

    /** The monitor's figures now (as of the last window). Any thread. */
    public Report report() {
        return new Report(true, threadKind(), resolution / 1e6,
                Math.round(stalledNanos() / 1000.0) / 1000.0, delays.figures().sinceStart(),
                delays.figures().last10s(), VirtualThreadScheduler.now().orElse(null));
    }

    /** The probe's kind of thread: {@code virtual} or {@code platform}. */
    public String threadKind() {
        return probe.isVirtual() ? "virtual" : "platform";
    }

    /** Stops the probe; its figures stay as they were. */
    @Override
    public void close() {
        closed = true;
        probe.interrupt();
        try {
            probe.join(Duration.ofSeconds(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (probe.isAlive()) {
            LOGGER.log(System.Logger.Level.WARNING, "the carrier-delay probe did not stop within 2 s");
        }
    }

    /**
     * The carrier delay as {@code /runtime} shows it (the Node.js and Netty peers answer the same shape): whether a
     * probe runs, its kind of thread ({@code virtual}, {@code platform}; the peers' {@code event-loop}), its
     * resolution, how late it is right now ({@code lateNowMs}: a stall it is in, before any window has it), its
     * lateness since the start and over the last 10 s, and the JDK scheduler's counts (JDK 24+, else null). With the
     * monitor off: {@code on} false and everything else null.
     */
    public record Report(boolean on, String thread, Double resolutionMs, Double lateNowMs,
                         LatencyWindows.Summary sinceStart, LatencyWindows.Summary last10s,
                         VirtualThreadScheduler.Counts scheduler) {
        public static final Report OFF = new Report(false, null, null, null, null, null, null);
    }

    @Name("dev.loanruntime.CarrierDelay")
    @Label("Carrier Delay")
    @Category("loan-runtime")
    @Description("One second of the carrier-delay probe: how late it woke (the time ready work waited for a thread to "
            + "run it), and the crypto pool's queue wait")
    @StackTrace(false)
    static final class WindowEvent extends Event {
        @Label("Probe Thread")
        @Description("The probe's kind of thread: virtual (its delay is a wait for a carrier) or platform (the OS's)")
        String thread;
        @Label("Resolution") @Timespan
        long resolution;
        @Label("Samples")
        long samples;
        @Label("Delay p50") @Timespan
        long p50;
        @Label("Delay p99") @Timespan
        long p99;
        @Label("Delay Max") @Timespan
        long max;
        @Label("Crypto Queue Waits")
        long cryptoQueueWaits;
        @Label("Crypto Queue Wait p99") @Timespan
        long cryptoQueueWaitP99;
        @Label("Crypto Queue Wait Max") @Timespan
        long cryptoQueueWaitMax;
    }
}
