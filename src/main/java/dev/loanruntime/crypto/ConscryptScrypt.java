package dev.loanruntime.crypto;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.util.Arrays;

import javax.crypto.SecretKeyFactory;

import org.conscrypt.Conscrypt;
import org.conscrypt.ScryptKeySpec;

/**
 * scrypt in BoringSSL (C), through Conscrypt's SecretKeyFactory {@code SCRYPT}. Its working memory (128 * r * N
 * bytes) is allocated and freed by the native code, outside the Java heap, so derivations make no garbage.
 * Thread-safe: each derivation uses its own factory.
 */
final class ConscryptScrypt implements PasswordHasher {
    private final Provider provider;

    private ConscryptScrypt(Provider provider) {
        this.provider = provider;
    }

    /**
     * Loads the native library (extracted from the jar to a temporary directory on first use).
     *
     * @throws IllegalStateException naming the reason when it cannot load on this platform
     */
    static ConscryptScrypt load() {
        try {
            Conscrypt.checkAvailability();
            Provider provider = Conscrypt.newProvider();
            SecretKeyFactory.getInstance("SCRYPT", provider);
            return new ConscryptScrypt(provider);
        } catch (LinkageError | RuntimeException | GeneralSecurityException e) {
            throw new IllegalStateException(rootMessage(e), e);
        }
    }

    @Override
    public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
        // Conscrypt takes the password as text and encodes it back to UTF-8: exact for any UTF-8 password, which is
        // what the routes pass (String.getBytes(UTF_8)); other bytes are refused rather than derived wrongly.
        char[] text = utf8(password);
        try {
            ScryptKeySpec spec = new ScryptKeySpec(text, salt, cost.n(), cost.r(), cost.p(), cost.keyLength() * 8);
            return SecretKeyFactory.getInstance("SCRYPT", provider).generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Conscrypt's scrypt failed for N,r,p " + cost.label() + ": "
                    + e.getMessage(), e);
        } finally {
            Arrays.fill(text, '\0');
        }
    }

    @Override
    public String name() {
        return ScryptProvider.CONSCRYPT.label();
    }

    private static char[] utf8(byte[] password) {
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(password));
            char[] text = new char[chars.remaining()];
            chars.get(text);
            return text;
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("conscrypt's scrypt takes UTF-8 passwords only");
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
