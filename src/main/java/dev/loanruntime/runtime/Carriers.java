package dev.loanruntime.runtime;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import dev.loanruntime.monitor.VirtualThreadScheduler;

/**
 * Sets and checks the number of carrier threads that run every virtual thread.
 *
 * <p>The JDK reads the scheduler's settings once, when the first virtual thread is created, so
 * {@link #configure(int)} must run before anything in the JVM starts one. {@code parallelism} alone is not enough:
 * the scheduler may add carriers (up to {@code maxPoolSize}, 256 by default) to compensate for pinned threads, so
 * all three properties are set.
 */
public final class Carriers {
    private static final String PREFIX = "jdk.virtualThreadScheduler.";

    private Carriers() {
    }

    /** Asks for exactly {@code count} carriers. Call on the main thread, before the first virtual thread. */
    public static void configure(int count) {
        String value = Integer.toString(count);
        System.setProperty(PREFIX + "parallelism", value);
        System.setProperty(PREFIX + "maxPoolSize", value);
        System.setProperty(PREFIX + "minRunnable", "1");
    }

    /**
     * The effective carrier count: the scheduler's parallelism from {@code VirtualThreadSchedulerMXBean} (JDK 24+),
     * else the number of distinct carriers seen by a burst of busy virtual threads (a lower bound).
     */
    public static Observation observe(int expected) {
        Optional<Integer> parallelism = VirtualThreadScheduler.now().map(VirtualThreadScheduler.Counts::parallelism);
        if (parallelism.isPresent()) {
            return new Observation(parallelism.get(), "VirtualThreadSchedulerMXBean");
        }
        return new Observation(distinctCarriers(Math.max(4, expected * 4)), "carrier names");
    }

    /**
     * Fails with a clear message when the JVM runs virtual threads on more carriers than asked for: the
     * settings came too late (a virtual thread existed before {@link #configure(int)}) or were overridden.
     */
    public static Observation verify(int expected) {
        Observation seen = observe(expected);
        boolean ok = seen.source().startsWith("VirtualThreadScheduler") ? seen.carriers() == expected
                : seen.carriers() <= expected;
        if (!ok) {
            throw new IllegalStateException("--carriers " + expected + " did not take effect: the JVM runs virtual "
                    + "threads on " + seen.carriers() + " carriers (" + seen.source() + "). A virtual thread was "
                    + "created before the setting was applied; start the JVM with -D" + PREFIX + "parallelism="
                    + expected + " -D" + PREFIX + "maxPoolSize=" + expected + " -D" + PREFIX + "minRunnable=1");
        }
        return seen;
    }

    private static int distinctCarriers(int threads) {
        Set<String> carriers = ConcurrentHashMap.newKeySet();
        CountDownLatch done = new CountDownLatch(threads);
        for (int i = 0; i < threads; i++) {
            Thread.ofVirtual().start(() -> {
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
                while (System.nanoTime() < end) {
                    carriers.add(carrierName());
                }
                done.countDown();
            });
        }
        try {
            done.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return carriers.size();
    }

    // A mounted virtual thread's toString ends with "@<carrier name>", e.g.
    // "VirtualThread[#31]/runnable@ForkJoinPool-1-worker-1".
    private static String carrierName() {
        String s = Thread.currentThread().toString();
        int at = s.lastIndexOf('@');
        return at < 0 ? s : s.substring(at + 1);
    }

    /**
     * @param carriers the effective carrier count
     * @param source   how it was observed
     */
    public record Observation(int carriers, String source) {
    }
}
