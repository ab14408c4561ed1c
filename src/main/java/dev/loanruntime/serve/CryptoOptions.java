package dev.loanruntime.serve;

import picocli.CommandLine.Option;

import dev.loanruntime.cli.Converters.ScryptCostConverter;
import dev.loanruntime.cli.Converters.ScryptProviderConverter;
import dev.loanruntime.cli.Defaults;
import dev.loanruntime.cli.Range;
import dev.loanruntime.cli.UsageError;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.crypto.ScryptProvider;

/**
 * One section of {@link ServeOptions}: the heavy work, its pool of crypto threads and their queue, the derivations
 * held at once, and the scrypt implementation and cost.
 */
public final class CryptoOptions {
    @Option(names = "--crypto-threads", paramLabel = "N",
            description = "Platform threads for pooled derivations (default: the number of cores; libuv's pool has "
                    + "4, but more threads than cores derive no faster and slow the light requests down).")
    @Range(min = 1, max = 256)
    private Integer cryptoThreads;

    @Option(names = "--crypto-queue", defaultValue = "64", paramLabel = "N",
            description = "Derivations that may wait, each bound apart: for a crypto thread (the pooled routes) and "
                    + "for the memory of --max-derivations (any route); past either, 503 busy at once "
                    + "(default: ${DEFAULT-VALUE}).")
    @Range(min = 0, max = 100_000)
    private int cryptoQueue;

    @Option(names = "--max-derivations", defaultValue = "0", paramLabel = "N",
            description = "Derivations that may hold their 64 MiB at once, in any thread model; 0 derives it from "
                    + "the heap: half of -Xmx / 64 MiB (default: ${DEFAULT-VALUE}).")
    @Range(min = 0, max = 1024)
    private int maxDerivations;

    @Option(names = "--scrypt", defaultValue = Defaults.SCRYPT, paramLabel = "PROVIDER",
            converter = ScryptProviderConverter.class,
            description = "scrypt implementation: reuse (pure Java over a 64 MiB workspace that each derivation "
                    + "permit keeps: about 20 KB of garbage per derivation), bouncycastle (BouncyCastle's "
                    + "SCrypt.generate: 512 MiB of garbage per derivation; for comparison) or conscrypt (BoringSSL "
                    + "through a bundled native library; where it cannot load, a warning and reuse) "
                    + "(default: ${DEFAULT-VALUE}).")
    private ScryptProvider scrypt;

    @Option(names = "--member-cost", defaultValue = Defaults.COST, paramLabel = "N,r,p",
            converter = ScryptCostConverter.class,
            description = "scrypt cost of the members' password hashes; lower it for tests "
                    + "(default: ${DEFAULT-VALUE}, the lesson's).")
    private ScryptCost memberCost;

    public int cryptoThreads() {
        return cryptoThreads;
    }

    public int cryptoQueue() {
        return cryptoQueue;
    }

    /** 0: derived from the heap. */
    public int maxDerivations() {
        return maxDerivations;
    }

    public ScryptProvider scrypt() {
        return scrypt;
    }

    public ScryptCost memberCost() {
        return memberCost;
    }

    /** Fills in the crypto threads the machine decides (one per core) and checks this section's values. */
    void validate(int cores) {
        if (cryptoThreads == null) {
            cryptoThreads = cores;
        }
        UsageError.checkRanges(this);
        if (memberCost.memoryBytes() > ScryptCost.LESSON.memoryBytes() || memberCost.p() > 64) {
            throw UsageError.invalid("--member-cost",
                    "at most the lesson's memory (128 * r * N <= 64 MiB) and p <= 64", memberCost.label());
        }
    }
}
