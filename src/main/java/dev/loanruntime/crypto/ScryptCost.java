package dev.loanruntime.crypto;

/**
 * The cost parameters of one scrypt derivation (RFC 7914).
 *
 * @param n         CPU/memory cost, a power of two greater than 1
 * @param r         block size
 * @param p         parallelization
 * @param keyLength length of the derived key in bytes
 */
public record ScryptCost(int n, int r, int p, int keyLength) {

    /** The lesson's cost as {@link #parse} reads it. */
    public static final String LESSON_LABEL = "65536,8,8";
    /** The length of every derived key: 32 bytes, the lesson's. */
    public static final int KEY_LENGTH = 32;
    /** The lesson's cost: over half a second of CPU and 64 MiB of memory per derivation. */
    public static final ScryptCost LESSON = parse(LESSON_LABEL);

    public ScryptCost {
        if (n < 2 || Integer.bitCount(n) != 1) {
            throw new IllegalArgumentException("scrypt N must be a power of two > 1, was " + n);
        }
        if (r < 1 || p < 1 || keyLength < 1) {
            throw new IllegalArgumentException("scrypt r, p and key length must be >= 1, were " + r + ", " + p + ", "
                    + keyLength);
        }
    }

    /**
     * Parses {@code N,r,p} (key length 32), e.g. {@code 65536,8,8}; the error names the bad value.
     */
    public static ScryptCost parse(String value) {
        String[] parts = value == null ? new String[0] : value.trim().split("\\s*,\\s*");
        try {
            if (parts.length != 3) {
                throw new IllegalArgumentException("three numbers");
            }
            return new ScryptCost(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]),
                    KEY_LENGTH);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected N,r,p with N a power of two > 1 and r, p >= 1 (the lesson's: "
                    + LESSON_LABEL + ") but was '" + value + "'");
        }
    }

    /** {@code N,r,p}, the form {@link #parse} reads. */
    public String label() {
        return n + "," + r + "," + p;
    }

    /** The memory one derivation holds while it runs (its V array: 128 * r * N bytes). */
    public long memoryBytes() {
        return 128L * r * n;
    }
}
