package dev.loanruntime.crypto;

import java.util.Arrays;
import java.util.Objects;

import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.PKCS5S2ParametersGenerator;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.util.Pack;

/**
 * scrypt (RFC 7914) in pure Java over a {@link Workspace} that outlives the derivation: the provider {@code reuse},
 * the default. PBKDF2-HMAC-SHA256 is BouncyCastle's; ROMix is {@link ScryptMix}. A derivation at the lesson's cost
 * allocates about 20 KB (PBKDF2's buffers and B), where BouncyCastle's {@code SCrypt.generate} allocates 512 MiB in
 * 128 KiB arrays that every young collection then copies. Runs on the calling thread and occupies it.
 */
final class ReuseScrypt implements PasswordHasher {

    /** Derives over a workspace of its own, dropped afterwards: for single uses; servers go through Derivations. */
    @Override
    public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
        return derive(password, salt, cost, Workspace.forCosts(cost));
    }

    /**
     * Derives over {@code workspace} and clears it before returning, whatever happens.
     *
     * @throws IllegalArgumentException when {@code cost} does not fit in {@code workspace}
     */
    @Override
    public byte[] derive(byte[] password, byte[] salt, ScryptCost cost, Workspace workspace) {
        Objects.requireNonNull(workspace, "workspace");
        if (!workspace.fits(cost)) {
            throw new IllegalArgumentException("scrypt N,r,p " + cost.label() + " does not fit in a workspace of "
                    + workspace.bytes() + " bytes");
        }
        int blockBytes = 128 * cost.r();
        byte[] b = pbkdf2(password, salt, 1, cost.p() * blockBytes);
        try {
            for (int i = 0; i < cost.p(); i++) {
                Pack.littleEndianToInt(b, i * blockBytes, workspace.v, 0, 32 * cost.r());
                ScryptMix.roMix(workspace.v, workspace.x, workspace.t, cost.n(), cost.r(), workspace.s);
                Pack.intToLittleEndian(workspace.x, 0, 32 * cost.r(), b, i * blockBytes);
            }
            return pbkdf2(password, b, 1, cost.keyLength());
        } finally {
            Arrays.fill(b, (byte) 0);
            workspace.clear(cost);
        }
    }

    @Override
    public boolean usesWorkspace() {
        return true;
    }

    @Override
    public String name() {
        return ScryptProvider.REUSE.label();
    }

    /** PBKDF2-HMAC-SHA256 (RFC 8018) of {@code length} bytes, by BouncyCastle. */
    static byte[] pbkdf2(byte[] password, byte[] salt, int iterations, int length) {
        PKCS5S2ParametersGenerator generator = new PKCS5S2ParametersGenerator(SHA256Digest.newInstance());
        generator.init(password, salt, iterations);
        return ((KeyParameter) generator.generateDerivedMacParameters(length * 8)).getKey();
    }
}
