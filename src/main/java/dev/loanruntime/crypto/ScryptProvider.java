package dev.loanruntime.crypto;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** Which scrypt implementation derives the keys ({@code --scrypt}). */
public enum ScryptProvider {
    /**
     * The default. Pure Java, runs wherever the JVM runs: RFC 7914's mixing over a 64 MiB workspace that each
     * derivation permit keeps and reuses, so a derivation leaves almost no garbage.
     */
    REUSE,
    /**
     * BouncyCastle's {@code SCrypt.generate}, pure Java: about 512 MiB of 128 KiB arrays per derivation at the
     * lesson's cost, garbage that every young collection copies while it is live. Kept for comparison.
     */
    BOUNCYCASTLE,
    /** BoringSSL through Conscrypt's bundled native library: its 64 MiB is native memory, freed at once. */
    CONSCRYPT;

    /** What {@code --scrypt} is when nothing sets it. */
    public static final ScryptProvider DEFAULT = REUSE;

    /**
     * The lower-case name used on the command line and in reports. This and {@link #parse} are the project's
     * {@code Labelled}, copied: crypto imports nothing of the project.
     */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a {@link #label()}; the error names the bad value and the allowed ones. */
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
     * The hasher for this provider. Conscrypt falls back to the default, {@code reuse}, when its native library
     * cannot load on this platform; the choice then says why. Loads the native library on the calling thread the
     * first time.
     */
    public Choice open() {
        return switch (this) {
            case REUSE -> new Choice(new ReuseScrypt(), Optional.empty());
            case BOUNCYCASTLE -> new Choice(new BouncyCastleScrypt(), Optional.empty());
            case CONSCRYPT -> conscryptOrDefault();
        };
    }

    private static Choice conscryptOrDefault() {
        try {
            return new Choice(ConscryptScrypt.load(), Optional.empty());
        } catch (IllegalStateException e) {
            return new Choice(DEFAULT.open().hasher(), Optional.of("--scrypt conscrypt: Conscrypt's native library "
                    + "cannot load on this platform (" + e.getMessage() + "); using " + DEFAULT.label()));
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
