package dev.loanruntime.overload;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.monitor.CarrierDelay;
import dev.loanruntime.monitor.LatencyWindows;
import dev.loanruntime.settings.ThreadModel;
import dev.loanruntime.testing.ServerProcess;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

/**
 * The delay guard sees a stall while it lasts: with the only carrier held, the probe cannot wake to record how late
 * it is, so no window shows the stall yet; the guard must read it from the sleep that fell due and did not end.
 */
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class DelayGuardStallIT {
    @Test
    void aStallInProgressIsRefusedBeforeTheProbeCanRecordIt() throws Exception {
        try (ServerProcess child = ServerProcess.start(List.of("-Djdk.virtualThreadScheduler.parallelism=1",
                "-Djdk.virtualThreadScheduler.maxPoolSize=1"), Stall.class.getName(), List.of())) {
            assertThat(child.output(), child.awaitExit(Duration.ofSeconds(60)), is(0));
            assertThat(child.output(), containsString("before the stall: admitted"));
            assertThat(child.output(), containsString("during the stall: refused"));
        }
    }

    /** A probe, a guard with a 200 ms bound, and a virtual thread that holds the one carrier for 2 s. */
    public static final class Stall {
        public static void main(String[] args) throws Exception {
            try (CarrierDelay delay = CarrierDelay.start(ThreadModel.VIRTUAL, Duration.ofMillis(10))) {
                DelayGuard guard = new DelayGuard(delay, Duration.ofMillis(200));
                // Two windows, as the server's clock would end them: the second holds only wakes after the JVM's
                // start (class loading and the JIT may make the first ones late)
                LatencyWindows.Summary noQueue = new LatencyWindows.Summary(0, null, null, null, null);
                Thread.sleep(500);
                delay.roll(noQueue);
                Thread.sleep(300);
                delay.roll(noQueue);
                System.out.println("before the stall: " + verdict(guard));
                Thread holder = Thread.ofVirtual().start(() -> {
                    long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                    while (System.nanoTime() < end) {
                        Thread.onSpinWait();
                    }
                });
                Thread.sleep(800);  // this platform thread needs no carrier to ask
                System.out.println("during the stall: " + verdict(guard) + " (late now "
                        + delay.report().lateNowMs() + " ms)");
                holder.join();
            }
        }

        private static String verdict(DelayGuard guard) {
            try {
                guard.admit();
                return "admitted";
            } catch (OverloadedException e) {
                return "refused";
            }
        }
    }
}
