package dev.loanruntime.crypto;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The default provider's working memory: kept by the derivation permits, reused, cleared, and no garbage. */
class WorkspaceTest {
    private static final ScryptCost CHEAP = new ScryptCost(1024, 8, 2, 32);
    private static final byte[] PASSWORD = "password".getBytes(StandardCharsets.UTF_8);
    private static final byte[] SALT = "salt".getBytes(StandardCharsets.UTF_8);
    private final PasswordHasher reuse = ScryptProvider.REUSE.open().hasher();

    @Test
    void reuseIsTheDefault() {
        assertEquals(ScryptProvider.REUSE, ScryptProvider.DEFAULT);
        assertTrue(ScryptProvider.DEFAULT.open().hasher().usesWorkspace());
    }

    /** The thread's allocation counter around one derivation at the lesson's cost, after two to warm up. */
    @Test
    void aDefaultDerivationAllocatesLessThan64KiB() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Derivations derivations = new Derivations(ScryptProvider.DEFAULT.open().hasher(), 1, 0);
        for (int i = 0; i < 2; i++) {
            derivations.derive(PASSWORD, SALT, ScryptCost.LESSON);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        byte[] key = derivations.derive(PASSWORD, SALT, ScryptCost.LESSON);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals("e47706c394e329b2", HexFormat.of().formatHex(key, 0, 8));
        System.out.println("reuse: one derivation at the lesson's cost allocated " + allocated + " bytes");
        assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes");
    }

    @Test
    void aDerivationLeavesItsWorkspaceAllZeros() {
        Derivations derivations = new Derivations(reuse, 1, 0, CHEAP);
        derivations.derive(PASSWORD, SALT, CHEAP);
        Workspace used = derivations.idleWorkspace();
        assertNotNull(used);
        for (int[] words : List.of(used.v, used.x, used.t, used.s)) {
            assertTrue(Arrays.stream(words).allMatch(w -> w == 0), "a word of the workspace was left set");
        }
    }

    @Test
    void aPermitKeepsItsWorkspaceAndReusesIt() {
        Derivations derivations = new Derivations(reuse, 1, 0, CHEAP);
        assertNull(derivations.idleWorkspace(), "made on first need, not before");
        byte[] first = derivations.derive(PASSWORD, SALT, CHEAP);
        Workspace kept = derivations.idleWorkspace();
        byte[] second = derivations.derive(PASSWORD, SALT, CHEAP);
        assertSame(kept, derivations.idleWorkspace());
        assertEquals(HexFormat.of().formatHex(first), HexFormat.of().formatHex(second));
        assertEquals(1, derivations.workspaces());
        assertEquals(kept.bytes(), derivations.workspaceBytes());
        assertTrue(kept.bytes() >= CHEAP.memoryBytes());
    }

    @Test
    void noMoreWorkspacesThanPermitsWhateverTheConcurrency() throws Exception {
        Derivations derivations = new Derivations(reuse, 2, 16, CHEAP);
        String expected = HexFormat.of().formatHex(reuse.derive(PASSWORD, SALT, CHEAP));
        try (ExecutorService callers = Executors.newFixedThreadPool(8)) {
            List<Future<byte[]>> keys = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                keys.add(callers.submit(() -> derivations.derive(PASSWORD, SALT, CHEAP)));
            }
            for (Future<byte[]> key : keys) {
                assertEquals(expected, HexFormat.of().formatHex(key.get()));
            }
        }
        assertTrue(derivations.workspaces() >= 1 && derivations.workspaces() <= 2,
                "workspaces: " + derivations.workspaces());
    }

    /** A smaller cost runs in a prefix of a larger workspace, and a larger cost replaces it. */
    @Test
    void aWorkspaceServesSmallerCostsAndIsReplacedForALargerOne() {
        ScryptCost smaller = new ScryptCost(16, 1, 1, 64);
        Derivations derivations = new Derivations(reuse, 1, 0, CHEAP);
        derivations.derive(PASSWORD, SALT, CHEAP);
        Workspace sized = derivations.idleWorkspace();
        assertEquals("77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
                        + "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906",
                HexFormat.of().formatHex(derivations.derive(new byte[0], new byte[0], smaller)));
        assertSame(sized, derivations.idleWorkspace());

        ScryptCost larger = new ScryptCost(2048, 8, 1, 32);
        assertEquals(HexFormat.of().formatHex(reuse.derive(PASSWORD, SALT, larger)),
                HexFormat.of().formatHex(derivations.derive(PASSWORD, SALT, larger)));
        assertTrue(derivations.idleWorkspace().fits(larger));
        assertEquals(1, derivations.workspaces());
        assertEquals(derivations.idleWorkspace().bytes(), derivations.workspaceBytes());
    }

    @Test
    void providersThatHoldTheirMemoryElsewhereGetNoWorkspace() {
        for (ScryptProvider provider : List.of(ScryptProvider.BOUNCYCASTLE, ScryptProvider.CONSCRYPT)) {
            Derivations derivations = new Derivations(provider.open().hasher(), 1, 0, CHEAP);
            derivations.derive(PASSWORD, SALT, CHEAP);
            assertEquals(0, derivations.workspaces(), provider.label());
            assertEquals(0, derivations.workspaceBytes(), provider.label());
        }
    }
}
