package dev.loanruntime.crypto;

/**
 * scrypt's mixing functions (RFC 7914, sections 3 to 5) over 32-bit little-endian words, mixing in place as OpenSSL
 * and libsodium do: each block of V is BlockMix of the one before it, written straight into its place; ROMix's
 * {@code X xor V[j]} is read inside BlockMix instead of being copied out first; X and T trade places instead of
 * being copied back. A block is {@code 32 * r} words. Stateless, allocates nothing; runs on the calling thread.
 */
final class ScryptMix {
    private ScryptMix() {
    }

    /**
     * ROMix (section 5) of the block in {@code v[0, 32r)}, over {@code v[0, 32rN)}; the result is left in
     * {@code x[0, 32r)}. {@code t} is a second block and {@code s} a 16-word scratch. {@code n} is a power of two.
     */
    static void roMix(int[] v, int[] x, int[] t, int n, int r, int[] s) {
        int w = 32 * r;
        for (int i = 1; i < n; i++) {
            blockMix(v, (i - 1) * w, null, 0, v, i * w, r, s);
        }
        blockMix(v, (n - 1) * w, null, 0, x, 0, r, s);
        int mask = n - 1;
        int last = w - 16;    // Integerify: the first word of the last 64 bytes (its low 32 bits suffice for N)
        for (int i = 0; i < n; i += 2) {    // two steps a turn, so X and T swap roles without a copy (N is even)
            blockMix(x, 0, v, (x[last] & mask) * w, t, 0, r, s);
            blockMix(t, 0, v, (t[last] & mask) * w, x, 0, r, s);
        }
    }

    /**
     * BlockMix_{Salsa20/8, r} (section 4) of the block at {@code in[inOff, inOff + 32r)}, xored word by word with the
     * block at {@code xor[xorOff]} when {@code xor} is not null, written to {@code out[outOff, outOff + 32r)}, which
     * must not overlap either input. {@code s} is a 16-word scratch.
     */
    static void blockMix(int[] in, int inOff, int[] xor, int xorOff, int[] out, int outOff, int r, int[] s) {
        int last = (2 * r - 1) * 16;
        for (int k = 0; k < 16; k++) {
            s[k] = xor == null ? in[inOff + last + k] : in[inOff + last + k] ^ xor[xorOff + last + k];
        }
        for (int i = 0; i < 2 * r; i++) {
            int from = i * 16;
            if (xor == null) {
                for (int k = 0; k < 16; k++) {
                    s[k] ^= in[inOff + from + k];
                }
            } else {
                for (int k = 0; k < 16; k++) {
                    s[k] ^= in[inOff + from + k] ^ xor[xorOff + from + k];
                }
            }
            salsa8(s);
            // Y_i goes to the first half for even i, to the second half for odd i
            System.arraycopy(s, 0, out, outOff + ((i & 1) == 0 ? i / 2 : r + i / 2) * 16, 16);
        }
    }

    /** The Salsa20/8 core (section 3) of the 16 words in {@code x}, in place: 8 rounds, then the input added. */
    static void salsa8(int[] x) {
        int x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7];
        int x8 = x[8], x9 = x[9], x10 = x[10], x11 = x[11], x12 = x[12], x13 = x[13], x14 = x[14], x15 = x[15];
        for (int round = 0; round < 8; round += 2) {
            // columns
            x4 ^= Integer.rotateLeft(x0 + x12, 7);
            x8 ^= Integer.rotateLeft(x4 + x0, 9);
            x12 ^= Integer.rotateLeft(x8 + x4, 13);
            x0 ^= Integer.rotateLeft(x12 + x8, 18);
            x9 ^= Integer.rotateLeft(x5 + x1, 7);
            x13 ^= Integer.rotateLeft(x9 + x5, 9);
            x1 ^= Integer.rotateLeft(x13 + x9, 13);
            x5 ^= Integer.rotateLeft(x1 + x13, 18);
            x14 ^= Integer.rotateLeft(x10 + x6, 7);
            x2 ^= Integer.rotateLeft(x14 + x10, 9);
            x6 ^= Integer.rotateLeft(x2 + x14, 13);
            x10 ^= Integer.rotateLeft(x6 + x2, 18);
            x3 ^= Integer.rotateLeft(x15 + x11, 7);
            x7 ^= Integer.rotateLeft(x3 + x15, 9);
            x11 ^= Integer.rotateLeft(x7 + x3, 13);
            x15 ^= Integer.rotateLeft(x11 + x7, 18);
            // rows
            x1 ^= Integer.rotateLeft(x0 + x3, 7);
            x2 ^= Integer.rotateLeft(x1 + x0, 9);
            x3 ^= Integer.rotateLeft(x2 + x1, 13);
            x0 ^= Integer.rotateLeft(x3 + x2, 18);
            x6 ^= Integer.rotateLeft(x5 + x4, 7);
            x7 ^= Integer.rotateLeft(x6 + x5, 9);
            x4 ^= Integer.rotateLeft(x7 + x6, 13);
            x5 ^= Integer.rotateLeft(x4 + x7, 18);
            x11 ^= Integer.rotateLeft(x10 + x9, 7);
            x8 ^= Integer.rotateLeft(x11 + x10, 9);
            x9 ^= Integer.rotateLeft(x8 + x11, 13);
            x10 ^= Integer.rotateLeft(x9 + x8, 18);
            x12 ^= Integer.rotateLeft(x15 + x14, 7);
            x13 ^= Integer.rotateLeft(x12 + x15, 9);
            x14 ^= Integer.rotateLeft(x13 + x12, 13);
            x15 ^= Integer.rotateLeft(x14 + x13, 18);
        }
        x[0] += x0;
        x[1] += x1;
        x[2] += x2;
        x[3] += x3;
        x[4] += x4;
        x[5] += x5;
        x[6] += x6;
        x[7] += x7;
        x[8] += x8;
        x[9] += x9;
        x[10] += x10;
        x[11] += x11;
        x[12] += x12;
        x[13] += x13;
        x[14] += x14;
        x[15] += x15;
    }
}
