package dev.loanruntime.crypto;

import org.bouncycastle.crypto.generators.SCrypt;

/**
 * BouncyCastle's {@code SCrypt.generate}, pure Java. It allocates V anew for every one of the p blocks, as 512 arrays
 * of 128 KiB at the lesson's cost (below G1's humongous threshold, so young collections copy them while they are
 * live): about 512 MiB of garbage per derivation. Kept for side-by-side runs with {@code reuse}.
 */
final class BouncyCastleScrypt implements PasswordHasher {

    @Override
    public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
        return SCrypt.generate(password, salt, cost.n(), cost.r(), cost.p(), cost.keyLength());
    }

    @Override
    public String name() {
        return ScryptProvider.BOUNCYCASTLE.label();
    }
}
