package dev.loanruntime.crypto;

import java.util.Arrays;

/**
 * The working memory of one {@code reuse} derivation: V ({@code 32 * r * N} words, 64 MiB at the lesson's cost), the
 * blocks X and T, and Salsa20/8's 16 words. Sized for the largest cost it serves; a smaller cost uses a prefix.
 * {@link Derivations} lends one to each derivation permit and takes it back, so it is used by one thread at a time
 * and is not thread-safe. Between uses it is all zeros: V[0] is PBKDF2(P, S, 1), and everything after follows from
 * it, so a heap dump of a used workspace would let password guesses run at the speed of one HMAC.
 */
public final class Workspace {
    final int[] v;
    final int[] x;
    final int[] t;
    final int[] s = new int[16];

    private Workspace(int vWords, int blockWords) {
        this.v = new int[vWords];
        this.x = new int[blockWords];
        this.t = new int[blockWords];
    }

    /**
     * A workspace large enough for every one of {@code costs}.
     *
     * @throws IllegalArgumentException when V would not fit in one Java array (over 8 GiB)
     */
    static Workspace forCosts(ScryptCost... costs) {
        long vWords = 0;
        int blockWords = 0;
        for (ScryptCost cost : costs) {
            vWords = Math.max(vWords, vWords(cost));
            blockWords = Math.max(blockWords, 32 * cost.r());
        }
        if (vWords > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("scrypt N,r " + vWords * 4 + " bytes of V do not fit in one array");
        }
        return new Workspace((int) vWords, blockWords);
    }

    /** Whether a derivation at {@code cost} fits in this workspace. */
    boolean fits(ScryptCost cost) {
        return vWords(cost) <= v.length && 32L * cost.r() <= x.length;
    }

    /** The heap this workspace holds, in bytes (array headers left out). */
    public long bytes() {
        return 4L * (v.length + x.length + t.length + s.length);
    }

    /** Zeroes what a derivation at {@code cost} wrote: the rest is still zero from the previous clear. */
    void clear(ScryptCost cost) {
        Arrays.fill(v, 0, (int) vWords(cost), 0);
        Arrays.fill(x, 0, 32 * cost.r(), 0);
        Arrays.fill(t, 0, 32 * cost.r(), 0);
        Arrays.fill(s, 0);
    }

    private static long vWords(ScryptCost cost) {
        return 32L * cost.r() * cost.n();
    }
}
