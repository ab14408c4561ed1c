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
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.sameInstance;


/** The default provider's working memory: kept by the derivation permits, reused, cleared, and no garbage. */
@ResourceLock(value = Resources.SYSTEM_OUT, mode = ResourceAccessMode.READ)   // it prints
@ResourceLock(value = Resources.SYSTEM_ERR, mode = ResourceAccessMode.READ)
class WorkspaceTest {
    private static final ScryptCost CHEAP = new ScryptCost(1024, 8, 2, 32);
    private static final byte[] PASSWORD = "password".getBytes(StandardCharsets.UTF_8);
    private static final byte[] SALT = "salt".getBytes(StandardCharsets.UTF_8);
    private final PasswordHasher reuse = ScryptProvider.REUSE.open().hasher();

    @Test
    void reuseIsTheDefault() {
        assertThat(ScryptProvider.DEFAULT, is(ScryptProvider.REUSE));
        assertThat(ScryptProvider.DEFAULT.open().hasher().usesWorkspace(), is(true));
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
        assertThat(HexFormat.of().formatHex(key, 0, 8), is("e47706c394e329b2"));
        System.out.println("reuse: one derivation at the lesson's cost allocated " + allocated + " bytes");
        assertThat("allocated " + allocated + " bytes", allocated < 64 * 1024);
    }

    @Test
    void aDerivationLeavesItsWorkspaceAllZeros() {
        Derivations derivations = new Derivations(reuse, 1, 0, CHEAP);
        derivations.derive(PASSWORD, SALT, CHEAP);
        Workspace used = derivations.idleWorkspace();
        assertThat(used, notNullValue());
        for (int[] words : List.of(used.v, used.x, used.t, used.s)) {
            assertThat("a word of the workspace was left set", Arrays.stream(words).allMatch(w -> w == 0));
        }
    }

    @Test
    void aPermitKeepsItsWorkspaceAndReusesIt() {
        Derivations derivations = new Derivations(reuse, 1, 0, CHEAP);
        assertThat("made on first need, not before", derivations.idleWorkspace(), nullValue());
        byte[] first = derivations.derive(PASSWORD, SALT, CHEAP);
        Workspace kept = derivations.idleWorkspace();
        byte[] second = derivations.derive(PASSWORD, SALT, CHEAP);
        assertThat(derivations.idleWorkspace(), sameInstance(kept));
        assertThat(HexFormat.of().formatHex(second), is(HexFormat.of().formatHex(first)));
        assertThat(derivations.workspaces(), is(1));
        assertThat(derivations.workspaceBytes(), is(kept.bytes()));
        assertThat(kept.bytes() >= CHEAP.memoryBytes(), is(true));
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
                assertThat(HexFormat.of().formatHex(key.get()), is(expected));
            }
        }
        assertThat("workspaces: " + derivations.workspaces(), derivations.workspaces() >= 1 && derivations.workspaces() <= 2);
    }

    /** A smaller cost runs in a prefix of a larger workspace, and a larger cost replaces it. */
    @Test
    void aWorkspaceServesSmallerCostsAndIsReplacedForALargerOne() {
        ScryptCost smaller = new ScryptCost(16, 1, 1, 64);
        Derivations derivations = new Derivations(reuse, 1, 0, CHEAP);
        derivations.derive(PASSWORD, SALT, CHEAP);
        Workspace sized = derivations.idleWorkspace();
        assertThat(HexFormat.of().formatHex(derivations.derive(new byte[0], new byte[0], smaller)), is("77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
                        + "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"));
        assertThat(derivations.idleWorkspace(), sameInstance(sized));

        ScryptCost larger = new ScryptCost(2048, 8, 1, 32);
        assertThat(HexFormat.of().formatHex(derivations.derive(PASSWORD, SALT, larger)), is(HexFormat.of().formatHex(reuse.derive(PASSWORD, SALT, larger))));
        assertThat(derivations.idleWorkspace().fits(larger), is(true));
        assertThat(derivations.workspaces(), is(1));
        assertThat(derivations.workspaceBytes(), is(derivations.idleWorkspace().bytes()));
    }

    @Test
    void providersThatHoldTheirMemoryElsewhereGetNoWorkspace() {
        for (ScryptProvider provider : List.of(ScryptProvider.BOUNCYCASTLE, ScryptProvider.CONSCRYPT)) {
            Derivations derivations = new Derivations(provider.open().hasher(), 1, 0, CHEAP);
            derivations.derive(PASSWORD, SALT, CHEAP);
            assertThat(provider.label(), derivations.workspaces(), is(0));
            assertThat(provider.label(), derivations.workspaceBytes(), is(0L));
        }
    }
}
