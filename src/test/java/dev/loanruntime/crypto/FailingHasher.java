package dev.loanruntime.crypto;

/** A hand-written fake whose every derivation fails, with a message a client must never see. */
public final class FailingHasher implements PasswordHasher {
    public static final String SECRET_MESSAGE = "secret internals";

    @Override
    public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
        throw new IllegalStateException(SECRET_MESSAGE);
    }

    @Override
    public String name() {
        return "failing-fake";
    }
}
