package dev.loanruntime.loan;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import dev.loanruntime.crypto.CryptoPool;
import dev.loanruntime.crypto.Derivations;
import dev.loanruntime.crypto.ScryptCost;

/**
 * The members and their scrypt password hashes, each with its own salt. Read-only once seeded, so every process
 * may hold its own copy: this is configuration, not state that changes between requests.
 *
 * <p>{@link #check} always runs exactly one derivation on the crypto pool, for an unknown member too (against a
 * dummy salt and hash), so that the answer time does not tell which member names exist.
 */
final class Members {
    private static final String SEED = "/members.csv";
    private final Map<String, Member> members;
    private final ScryptCost cost;
    private final CryptoPool pool;
    private final Member dummy;

    private Members(Map<String, Member> members, ScryptCost cost, CryptoPool pool) {
        this.members = Map.copyOf(members);
        this.cost = cost;
        this.pool = pool;
        SecureRandom random = new SecureRandom();
        byte[] salt = new byte[16];
        byte[] hash = new byte[cost.keyLength()];
        random.nextBytes(salt);
        random.nextBytes(hash);
        this.dummy = new Member(salt, hash);
    }

    /**
     * Seeds the demo members. At the lesson's cost the stored hashes are used; at another cost each hash is derived
     * again on the calling thread, which blocks for one derivation per member (start-up only, before listening).
     */
    static Members seed(CryptoPool pool, ScryptCost cost) {
        Map<String, Member> members = new HashMap<>();
        Derivations derivations = pool.derivations();
        for (String[] row : rows()) {
            byte[] salt = Base64.getDecoder().decode(row[2]);
            byte[] hash = cost.equals(ScryptCost.LESSON)
                    ? Base64.getDecoder().decode(row[3])
                    : derivations.derive(row[1].getBytes(StandardCharsets.UTF_8), salt, cost);
            members.put(row[0], new Member(salt, hash));
        }
        return new Members(members, cost, pool);
    }

    /**
     * Whether {@code password} is {@code member}'s. Blocks the caller for one derivation on the crypto pool (a
     * virtual caller parks), whether or not the member exists; compares in constant time.
     *
     * @throws dev.loanruntime.crypto.BusyException when the crypto pool is full
     */
    boolean check(String member, String password) {
        Member known = members.get(member);
        Member compared = known == null ? dummy : known;
        byte[] derived = pool.derive(password.getBytes(StandardCharsets.UTF_8), compared.salt(), cost);
        boolean equal = MessageDigest.isEqual(derived, compared.hash());
        return known != null && equal;
    }

    private static Iterable<String[]> rows() {
        try (InputStream in = Members.class.getResourceAsStream(SEED)) {
            if (in == null) {
                throw new IllegalStateException(SEED + " is missing from the class path");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            return reader.lines()
                    .filter(line -> !line.isBlank() && !line.startsWith("#"))
                    .map(line -> line.split(",", -1))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Member(byte[] salt, byte[] hash) {
    }
}
