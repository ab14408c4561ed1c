package dev.loanruntime.hostile;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Counts the hostile cases of every class that uses it and prints {@code hostile cases: N, server survived: M} once,
 * when the whole test run ends (the root context's store closes its resources then). A case counts when it begins,
 * before its first byte is sent; it survived once the server answered {@code GET /books} with the catalog after it.
 * A case that fails on the way (a wrong answer, a dead server) is counted but not as survived, so the two numbers
 * differ whenever a case went wrong.
 */
public final class HostileTally implements BeforeAllCallback {
    private static final AtomicInteger CASES = new AtomicInteger();
    private static final AtomicInteger SURVIVED = new AtomicInteger();

    /** A hostile case begins: call before sending it. */
    public static void started() {
        CASES.incrementAndGet();
    }

    /** The server answered {@code GET /books} after a case that {@link #started()}; never more often than that. */
    public static void survived() {
        if (SURVIVED.incrementAndGet() > CASES.get()) {
            SURVIVED.decrementAndGet();
            throw new IllegalStateException("survived() without a case that started()");
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(HostileTally.class, key -> new Printer(), Printer.class);
    }

    private static final class Printer implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            System.out.println("hostile cases: " + CASES.get() + ", server survived: " + SURVIVED.get());
        }
    }
}
