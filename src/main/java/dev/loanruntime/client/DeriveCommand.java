package dev.loanruntime.client;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.loanruntime.cli.Converters;
import dev.loanruntime.cli.Defaults;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.crypto.ScryptProvider;

/** {@code derive}: scrypt derivations in this JVM, alone and on a crypto pool; runs on the caller's thread. */
@Command(name = "derive", mixinStandardHelpOptions = true, sortOptions = false,
         description = {"Measure scrypt in this JVM, without a server: the time, CPU and bytes allocated of one "
                 + "derivation alone (median of --single, after a warm-up of one derivation per pool thread) and the "
                 + "derivations per second of --count derivations on a crypto pool of --threads platform threads, "
                 + "the server's own pool and memory bound, with the collections of both phases.",
                 "The pool's efficiency is its rate divided by min(threads, cores) x the single rate: 1.0 means "
                 + "every core derives as fast as one derivation alone."})
public final class DeriveCommand implements Callable<Integer> {
    @Option(names = "--scrypt", defaultValue = Defaults.SCRYPT, paramLabel = "PROVIDER",
            converter = Converters.ScryptProviderConverter.class,
            description = "reuse, bouncycastle or conscrypt (default: ${DEFAULT-VALUE}, as serve's).")
    ScryptProvider scrypt;

    @Option(names = "--threads", paramLabel = "N", description = "Crypto pool threads (default: the number of cores).")
    Integer threads;

    @Option(names = "--count", paramLabel = "N",
            description = "Derivations submitted at once to the pool (default: 4 x threads).")
    Integer count;

    @Option(names = "--single", defaultValue = "3", paramLabel = "N",
            description = "Derivations timed one at a time (default: ${DEFAULT-VALUE}).")
    int single;

    @Option(names = "--cost", defaultValue = Defaults.COST, paramLabel = "N,r,p",
            converter = Converters.ScryptCostConverter.class,
            description = "scrypt cost (default: ${DEFAULT-VALUE}, the lesson's).")
    ScryptCost cost;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results to FILE.")
    Path json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        int cores = Runtime.getRuntime().availableProcessors();
        int poolThreads = threads == null ? cores : threads;
        int derivations = count == null ? 4 * poolThreads : count;
        if (poolThreads < 1 || poolThreads > 256 || derivations < 1 || derivations > 10_000 || single < 1
                || single > 100) {
            throw new CommandLine.ParameterException(spec.commandLine(), "expected --threads 1..256, --count 1..10000 "
                    + "and --single 1..100 but were " + poolThreads + ", " + derivations + " and " + single);
        }
        ScryptProvider.Choice choice = scrypt.open();
        choice.fallback().ifPresent(why -> System.err.println("loan-runtime: warning: " + why));
        DeriveRun run = new DeriveRun(choice.hasher(), cost, "password".getBytes(StandardCharsets.UTF_8),
                "salt".getBytes(StandardCharsets.UTF_8));
        DeriveReport report = run.measure(scrypt, poolThreads, derivations, single);
        report.print(System.out);
        if (json != null) {
            Results.write(json, report);
        }
        return 0;
    }
}
