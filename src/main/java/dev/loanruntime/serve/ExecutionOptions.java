package dev.loanruntime.serve;

import picocli.CommandLine.Option;

import dev.loanruntime.cli.Converters.ThreadModelConverter;
import dev.loanruntime.cli.Range;
import dev.loanruntime.cli.UsageError;
import dev.loanruntime.settings.ThreadModel;

/** One section of {@link ServeOptions}: the execution model, the threads that run the route handlers. */
public final class ExecutionOptions {
    @Option(names = "--threads", defaultValue = "virtual", paramLabel = "MODEL",
            converter = ThreadModelConverter.class,
            description = "Threads that run route handlers: virtual (one virtual thread per request) or platform "
                    + "(a fixed pool of platform threads, thread-per-request) (default: ${DEFAULT-VALUE}).")
    private ThreadModel threads;

    @Option(names = "--platform-threads", defaultValue = "200", paramLabel = "N",
            description = "Handler pool size with --threads platform (default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 10_000)
    private int platformThreads;

    // No default: the number of cores, filled in by validated().
    @Option(names = "--carriers", paramLabel = "N",
            description = "Carrier threads that run all virtual threads; 1 is the single-carrier mode, the JVM's "
                    + "event loop (default: the number of cores).")
    @Range(min = 1, max = 256)
    private Integer carriers;

    public ThreadModel threads() {
        return threads;
    }

    public int platformThreads() {
        return platformThreads;
    }

    public int carriers() {
        return carriers;
    }

    /** Fills in the carriers the machine decides (one per core) and checks this section's values. */
    void validate(int cores) {
        if (carriers == null) {
            carriers = cores;
        }
        UsageError.checkRanges(this);
    }
}
