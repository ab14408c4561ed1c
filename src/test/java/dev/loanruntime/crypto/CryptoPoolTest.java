package dev.loanruntime.crypto;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;

/** The crypto pool's admission slots: every slot a caller takes comes back, however the caller ends. */
@Timeout(30)
class CryptoPoolTest {
    private static final ScryptCost CHEAP = new ScryptCost(16, 1, 1, 32);
    private static final byte[] PW = {1};
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    @SuppressWarnings("try") // unblock is never read: it is a resource only for what closing it does
    void aCallerInterruptedWhileItsTaskIsQueuedGivesItsSlotBack() throws Exception {
        BlockingHasher hasher = new BlockingHasher();
        // One thread and one waiting place, as a server under load might have them: two slots in all.
        try (CryptoPool pool = new CryptoPool(new Derivations(hasher, 8, 8), 1, 1);
                ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();
                // closed first: a failed check must not leave the callers blocked until the hasher gives up
                AutoCloseable unblock = hasher::release) {
            List<CompletableFuture<byte[]>> admitted = new ArrayList<>();
            admitted.add(CompletableFuture.supplyAsync(() -> pool.derive(PW, PW, CHEAP), callers));
            await("hasher.running() == 1").atMost(WAIT).until(() -> hasher.running() == 1);

            // A caller whose task waits in the queue is interrupted (Helidon interrupts a connection's thread on
            // stop, for one): it gives up, and its task must never run.
            AtomicReference<RuntimeException> gaveUp = new AtomicReference<>();
            Thread queued = Thread.ofVirtual().start(() -> {
                try {
                    pool.derive(PW, PW, CHEAP);
                } catch (RuntimeException e) {
                    gaveUp.set(e);
                }
            });
            await("pool.queued() == 1").atMost(WAIT).until(() -> pool.queued() == 1);
            queued.interrupt();
            queued.join(WAIT);
            assertThat(gaveUp.get(), instanceOf(DerivationException.class));
            assertThat("the abandoned task still counts as waiting", pool.queued(), is(0));

            // The pool fills to its size again: the abandoned caller's slot takes a new waiting derivation.
            admitted.add(CompletableFuture.supplyAsync(() -> pool.derive(PW, PW, CHEAP), callers));
            await("pool.queued() == 1 || admitted.getLast().isDone()").atMost(WAIT)
                    .until(() -> pool.queued() == 1 || admitted.getLast().isDone());
            // still waiting for a pool thread: neither refused (FAILED) nor answered
            assertThat(admitted.getLast().state(), is(Future.State.RUNNING));

            hasher.release();
            for (CompletableFuture<byte[]> derivation : admitted) {
                assertThat(derivation.get().length, is(32));
            }
        }
        assertThat("the abandoned task ran after all", hasher.started(), is(2));
    }
}
