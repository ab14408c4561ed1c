package dev.loanruntime.serve;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;

/**
 * Runs in a worker: ends the worker when its primary is gone, however it went (even SIGKILL, which the primary
 * cannot react to). The primary keeps the write end of the worker's stdin open and never writes to it; the kernel
 * closes it when the primary's process ends, so a blocking read here returns end-of-file at once. No polling, no
 * timer: the orphan notices within milliseconds.
 */
public final class PrimaryWatch {
    /** After the primary is gone, the orphan gets this long to stop gracefully before it halts. */
    static final Duration ORPHAN_GRACE = Duration.ofMillis(1000);
    private static final System.Logger LOGGER = System.getLogger(PrimaryWatch.class.getName());

    private PrimaryWatch() {
    }

    /**
     * Starts a daemon platform thread that blocks reading stdin; at end of file it calls {@code stop} (from that
     * thread) and halts the JVM if it has not exited {@link #ORPHAN_GRACE} later. Returns at once.
     */
    public static void start(Runnable stop) {
        // In-flight requests had their chance; nobody will replace or stop this process any more.
        start(System.in, stop, ORPHAN_GRACE, () -> Runtime.getRuntime().halt(1));
    }

    static Thread start(InputStream primaryPipe, Runnable stop, Duration grace, Runnable halt) {
        return Thread.ofPlatform().daemon().name("primary-watch").start(() -> {
            drain(primaryPipe);
            LOGGER.log(System.Logger.Level.WARNING, "the primary is gone; this worker stops");
            Thread.ofPlatform().daemon().name("orphan-halt").start(() -> {
                try {
                    Thread.sleep(grace);
                } catch (InterruptedException e) {
                    return;
                }
                halt.run();
            });
            stop.run();
        });
    }

    private static void drain(InputStream in) {
        byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // the primary never writes; anything read is ignored
            }
        } catch (IOException e) {
            // a broken pipe means the same as end of file: the primary is gone
        }
    }
}
