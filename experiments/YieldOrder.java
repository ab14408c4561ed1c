import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Which ready virtual thread a carrier runs first. On one carrier (run it with -Djdk.virtualThreadScheduler.parallelism=1
 * -Djdk.virtualThreadScheduler.maxPoolSize=1), a spinner holds the carrier for SPIN_MS, ROUNDS times, and between
 * spins becomes ready again either by yielding (Thread.yield: made ready on the carrier itself) or by sleeping 1 ms
 * (made ready by the JDK's timer, from outside), while a probe sleeps 10 ms at a time and records how late it woke.
 * Prints one line: "yield|sleep probe-longest-ms=L spin-ms=S rounds=N".
 * Run: java -Djdk.virtualThreadScheduler.parallelism=1 -Djdk.virtualThreadScheduler.maxPoolSize=1 \
 *        experiments/YieldOrder.java yield|sleep [SPIN_MS] [ROUNDS]
 */
public class YieldOrder {
    public static void main(String[] args) throws InterruptedException {
        boolean yields = args[0].equals("yield");
        long spin = Duration.ofMillis(args.length > 1 ? Long.parseLong(args[1]) : 100).toNanos();
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 40;
        Thread spinner = Thread.ofVirtual().unstarted(() -> {
            for (int i = 0; i < rounds; i++) {
                long end = System.nanoTime() + spin;
                while (System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                if (yields) {
                    Thread.yield();
                } else {
                    sleep(Duration.ofMillis(1));
                }
            }
        });
        long[] longest = new long[1];
        CountDownLatch probing = new CountDownLatch(1);
        Thread probe = Thread.ofVirtual().unstarted(() -> {
            probing.countDown();
            while (spinner.isAlive() || spinner.getState() == Thread.State.NEW) {
                long due = System.nanoTime() + Duration.ofMillis(10).toNanos();
                sleep(Duration.ofMillis(10));
                longest[0] = Math.max(longest[0], System.nanoTime() - due);
            }
        });
        probe.start();
        probing.await();    // the probe sleeps before the spinner takes the carrier
        spinner.start();
        spinner.join();
        probe.join();
        System.out.printf("%s probe-longest-ms=%.1f spin-ms=%d rounds=%d%n", args[0], longest[0] / 1e6,
                spin / 1_000_000, rounds);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
