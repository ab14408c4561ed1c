package dev.loanruntime.crypto;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** Which scrypt implementation derives the keys ({@code --scrypt}). */
public enum ScryptProvider {
    /** Pure Java: runs wherever the JVM runs; its 64 MiB per derivation is heap (garbage for the collector). */
    BOUNCYCASTLE,
    /** BoringSSL through Conscrypt's bundled native library: its 64 MiB is native memory, freed at once. */
    CONSCRYPT;

    /** The lower-case name used on the command line and in reports. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code bouncycastle} or {@code conscrypt}; the error names the bad value and the allowed ones. */
    public static ScryptProvider parse(String value) {
        for (ScryptProvider provider : values()) {
            if (provider.label().equals(value)) {
                return provider;
            }
        }
        throw new IllegalArgumentException("expected one of "
                + Arrays.stream(values()).map(ScryptProvider::label).collect(Collectors.joining(", "))
                + " but was '" + value + "'");
    }

    /**
     * The hasher for this provider. Conscrypt falls back to BouncyCastle when its native library cannot load on
     * this platform; the choice then says why. Loads the native library on the calling thread the first time.
     */
    public Choice open() {
        if (this == BOUNCYCASTLE) {
            return new Choice(new BouncyCastleScrypt(), Optional.empty());
        }
        try {
            return new Choice(ConscryptScrypt.load(), Optional.empty());
        } catch (IllegalStateException e) {
            return new Choice(new BouncyCastleScrypt(), Optional.of("--scrypt conscrypt: Conscrypt's native library "
                    + "cannot load on this platform (" + e.getMessage() + "); using bouncycastle"));
        }
    }

    /**
     * The hasher actually used, and why it is not the one asked for, if it is not.
     *
     * @param hasher   the hasher to derive with
     * @param fallback one line saying why the asked-for provider was replaced, empty when it was not
     */
    public record Choice(PasswordHasher hasher, Optional<String> fallback) {
    }
}
