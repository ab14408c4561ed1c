package dev.loanruntime.client;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import dev.loanruntime.cli.Converters;
import dev.loanruntime.cli.Signals;
import dev.loanruntime.cli.UsageError;

/** {@code load}: a bounded closed-loop or open-loop load against one path; runs on the caller's thread. */
@Command(name = "load", mixinStandardHelpOptions = true, sortOptions = false,
         description = {"Send a bounded load to one path of a running server, with keep-alive connections, and "
                 + "print the configuration, throughput, latency percentiles (ms) and errors by kind.",
                 "Closed loop (default): --concurrency workers, each sending its next request when the last is "
                 + "answered. Open loop (--rate): requests fall due at a fixed rate and each one's latency is "
                 + "measured from when it was due, so a stalled server shows in the percentiles.",
                 "SIGTERM or SIGINT ends the run early: no new request is sent, those in flight finish, and the "
                 + "report (and --json) covers the run up to then. A second one ends the process at once.",
                 MeasureOptions.EXIT_STATUS})
public final class LoadCommand implements Callable<Integer> {
    @Mixin
    MeasureOptions.Url server;

    @Option(names = "--path", defaultValue = "/books", paramLabel = "PATH",
            description = "Path and query of every request (default: ${DEFAULT-VALUE}).")
    String path;

    @Option(names = "--concurrency", defaultValue = "16", paramLabel = "C",
            description = "Closed loop: concurrent workers, one virtual thread and connection (with --http2: stream) "
                    + "each (default: ${DEFAULT-VALUE}, at most 20000).")
    int concurrency;

    @Option(names = "--http2",
            description = "Speak HTTP/2 without TLS (h2c, prior knowledge): every request is a stream, and the streams "
                    + "share --connections connections, as a browser or a balancer's pool would (default: HTTP/1.1, "
                    + "one connection per worker).")
    boolean http2;

    @Option(names = "--connections", paramLabel = "N",
            description = "With --http2: connections the streams share (default: 1).")
    Integer connections;

    @Option(names = "--rate", defaultValue = "0", paramLabel = "N",
            description = "Open loop: requests per second (default: closed loop).")
    double rate;

    @Option(names = "--max-in-flight", defaultValue = "10000", paramLabel = "N",
            description = "Open loop: requests in flight at most; waiting for room counts in the latency "
                    + "(default: ${DEFAULT-VALUE}).")
    int maxInFlight;

    @Option(names = "--duration", paramLabel = "DURATION",
            converter = Converters.DurationConverter.class,
            description = "Send for this long, e.g. 10s, 500ms (default: 10s unless --requests is given).")
    Duration duration;

    @Option(names = "--requests", defaultValue = "0", paramLabel = "N",
            description = "Send this many requests (instead of --duration).")
    long requests;

    @Option(names = "--warmup-requests", defaultValue = "0", paramLabel = "N",
            description = "Requests sent first and not measured (default: ${DEFAULT-VALUE}).")
    int warmupRequests;

    @Option(names = "--timeout", defaultValue = "30s", paramLabel = "DURATION",
            converter = Converters.DurationConverter.class,
            description = "Read timeout per request (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--watch-pid", paramLabel = "PID",
            description = "Also report this process's OS threads and resident memory, before and at their peak "
                    + "(from /proc; Linux).")
    Long watchPid;

    @Mixin
    MeasureOptions.Label run;

    @Option(names = "--json", paramLabel = "FILE",
            description = "Also write the configuration, results and latency distribution to FILE.")
    Path json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        Duration bound = duration == null && requests <= 0 ? Duration.ofSeconds(10) : duration;
        LoadConfig config = UsageError.orUsage(spec.commandLine(), () -> {
            if (connections != null && !http2) {
                throw UsageError.invalid("--connections",
                        "it needs --http2 (over HTTP/1.1 each worker has a connection of its own)");
            }
            return new LoadConfig(server.target(), path, rate, concurrency, maxInFlight, bound, requests,
                    warmupRequests, timeout, true, http2 ? (connections == null ? 1 : connections) : 0);
        });
        ProcWatch watch = UsageError.orUsage(spec.commandLine(), () -> {
            config.target().requireReachable(Duration.ofSeconds(5));
            return watchPid == null ? null : ProcWatch.start(watchPid);
        });
        AtomicBoolean stop = new AtomicBoolean();
        Signals.on("TERM", () -> stopOrExit(stop, 143));
        Signals.on("INT", () -> stopOrExit(stop, 130));
        LoadRun.Measured measured = LoadRun.run(config, stop);
        LoadReport report = LoadReport.of(config, run.label, measured, watch == null ? null : watch.stop());
        report.print(System.out);
        if (json != null) {
            Results.write(json, report);
        }
        return report.failed() == 0 ? 0 : 1;
    }

    /** The first signal asks the run to stop; a second ends the process with the shell's 128 + signal. */
    private static void stopOrExit(AtomicBoolean stop, int status) {
        if (stop.getAndSet(true)) {
            Runtime.getRuntime().halt(status);
        }
        System.err.println("load: stopping: no new requests; waiting for those in flight (again to end at once)");
    }
}
