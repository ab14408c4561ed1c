package dev.loanruntime.crypto;

import org.bouncycastle.crypto.generators.SCrypt;

/** Portable scrypt in pure Java (BouncyCastle). */
public final class BouncyCastleScrypt implements PasswordHasher {

    @Override
    public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
        return SCrypt.generate(password, salt, cost.n(), cost.r(), cost.p(), cost.keyLength());
    }

    @Override
    public String name() {
        return "bouncycastle";
    }
}
