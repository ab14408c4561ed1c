package dev.loanruntime.crypto;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class DerivationBoundsTest {
    private static final ScryptCost CHEAP = new ScryptCost(16, 1, 1, 32);
    private static final byte[] PW = {1};

    @Test
    void noMoreThanMaxRunningDeriveAtOnceAndExcessWaitersAreRefused() throws Exception {
        BlockingHasher hasher = new BlockingHasher();
        Derivations derivations = new Derivations(hasher, 2, 3);
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<CompletableFuture<byte[]>> admitted = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                admitted.add(CompletableFuture.supplyAsync(() -> derivations.derive(PW, PW, CHEAP), callers));
            }
            await("hasher.running() == 2 && derivations.waiting() == 3").atMost(Duration.ofSeconds(10))
                    .until(() -> hasher.running() == 2 && derivations.waiting() == 3);

            BusyException busy = assertThrows(BusyException.class, () -> derivations.derive(PW, PW, CHEAP));
            assertThat(busy.reason(), is("derivation-memory"));

            hasher.release();
            for (CompletableFuture<byte[]> f : admitted) {
                assertThat(f.get().length, is(32));
            }
        }
        assertThat(hasher.maxRunning(), is(2));
        assertThat(hasher.started(), is(5));
    }

    @Test
    void fullCryptoQueueRefusesAtOnce() throws Exception {
        BlockingHasher hasher = new BlockingHasher();
        try (CryptoPool pool = new CryptoPool(new Derivations(hasher, 8, 8), 1, 1);
                ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            var first = CompletableFuture.supplyAsync(() -> pool.derive(PW, PW, CHEAP), callers);
            await("hasher.running() == 1").atMost(Duration.ofSeconds(10)).until(() -> hasher.running() == 1);
            var second = CompletableFuture.supplyAsync(() -> pool.derive(PW, PW, CHEAP), callers);
            await("pool.queued() == 1").atMost(Duration.ofSeconds(10)).until(() -> pool.queued() == 1);

            long start = System.nanoTime();
            BusyException busy = assertThrows(BusyException.class, () -> pool.derive(PW, PW, CHEAP));
            assertThat("refusal must not wait", System.nanoTime() - start < Duration.ofSeconds(1).toNanos());
            assertThat(busy.reason(), is("crypto-queue"));

            hasher.release();
            assertThat(first.get().length, is(32));
            assertThat(second.get().length, is(32));
        }
    }

    @Test
    void failingHasherSurfacesAsDerivationExceptionAndFreesItsPermit() {
        PasswordHasher broken = new FailingHasher();
        Derivations derivations = new Derivations(broken, 1, 0);
        try (CryptoPool pool = new CryptoPool(derivations, 1, 0)) {
            for (int i = 0; i < 3; i++) {   // a leaked permit would turn the second call into BusyException
                assertThrows(DerivationException.class, () -> pool.derive(PW, PW, CHEAP));
            }
        }
        assertThat(derivations.running(), is(0));
    }

    @Test
    void defaultBoundIsHalfTheHeapInDerivations() {
        assertThat(Derivations.defaultMaxRunning(512L << 20, ScryptCost.LESSON), is(4));
        assertThat(Derivations.defaultMaxRunning(64L << 20, ScryptCost.LESSON), is(1));
    }
}
