package dev.loanruntime.crypto;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * RFC 7914's largest vector (N = 1048576, r = 8, p = 1: 1 GiB of V) in a JVM of its own, so that the test JVM's heap
 * need not hold it: {@code LargeVector PROVIDER...} prints {@code PROVIDER KEY-IN-HEX}, or {@code PROVIDER refused:
 * MESSAGE} when the provider will not derive it, one line per provider.
 */
public final class LargeVector {
    static final ScryptCost COST = new ScryptCost(1 << 20, 8, 1, 64);

    private LargeVector() {
    }

    public static void main(String[] args) {
        for (String name : args) {
            ScryptProvider.Choice choice = ScryptProvider.parse(name).open();
            try {
                byte[] key = choice.hasher().derive("pleaseletmein".getBytes(StandardCharsets.UTF_8),
                        "SodiumChloride".getBytes(StandardCharsets.UTF_8), COST);
                System.out.println(choice.hasher().name() + " " + HexFormat.of().formatHex(key));
            } catch (RuntimeException e) {
                System.out.println(choice.hasher().name() + " refused: " + e.getMessage());
            }
        }
    }
}
