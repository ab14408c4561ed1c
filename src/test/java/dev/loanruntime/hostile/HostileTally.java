package dev.loanruntime.hostile;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Counts the hostile cases of every class that uses it and prints {@code hostile cases: N, server survived: N} once,
 * when the whole test run ends (the root context's store closes its resources then).
 */
public final class HostileTally implements BeforeAllCallback {
    private static final AtomicInteger CASES = new AtomicInteger();
    private static final AtomicInteger SURVIVED = new AtomicInteger();

    /** A case was sent; {@link #survived()} follows once the server answered {@code GET /books} after it. */
    public static void started() {
        CASES.incrementAndGet();
    }

    public static void survived() {
        SURVIVED.incrementAndGet();
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
