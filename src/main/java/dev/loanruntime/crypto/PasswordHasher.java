package dev.loanruntime.crypto;

/**
 * Derives a key from a password with scrypt. Runs on the calling thread and occupies it (and, for a
 * virtual thread, its carrier) for the whole derivation: it never yields.
 */
public interface PasswordHasher {

    /**
     * Derives a key.
     *
     * @param password password bytes
     * @param salt     salt bytes
     * @param cost     scrypt parameters
     * @return derived key of {@code cost.keyLength()} bytes
     */
    byte[] derive(byte[] password, byte[] salt, ScryptCost cost);

    /**
     * Derives a key over {@code workspace}, which the caller lends for this call only. Providers whose working
     * memory lives elsewhere (native memory, or arrays of their own) ignore it.
     */
    default byte[] derive(byte[] password, byte[] salt, ScryptCost cost, Workspace workspace) {
        return derive(password, salt, cost);
    }

    /** Whether {@link #derive(byte[], byte[], ScryptCost, Workspace)} works in the workspace it is lent. */
    default boolean usesWorkspace() {
        return false;
    }

    /** A short name for reports, e.g. {@code reuse}. */
    String name();
}
