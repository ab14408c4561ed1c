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

    /** A short name for reports, e.g. {@code bouncycastle}. */
    String name();
}
