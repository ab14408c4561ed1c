package dev.loanruntime.client;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import dev.loanruntime.cli.Converters;
import dev.loanruntime.cli.Range;
import dev.loanruntime.cli.UsageError;

/**
 * {@code probe}: the lesson's measurement. One heavy request, then {@code --light-count} light requests
 * {@code --gap-ms} later; the light requests' durations tell whether they waited for the heavy work. Each
 * request runs on its own virtual thread; the command's thread only starts and joins them.
 */
@Command(name = "probe", mixinStandardHelpOptions = true, sortOptions = false,
         description = {"Send one heavy request and, --gap-ms later, --light-count light ones to a running server; "
                 + "print each request's duration (the lesson's lines), and with --rounds > 1 the median and max "
                 + "of both kinds and their ratio. A fresh connection per request, as curl does, unless --keep-alive.",
                 MeasureOptions.EXIT_STATUS})
public final class ProbeCommand implements Callable<Integer> {
    @Mixin
    MeasureOptions.Url server;

    @Option(names = "--heavy", defaultValue = "/member/verify-blocking", paramLabel = "PATH",
            description = "Path of the heavy request, e.g. /member/verify-pooled (default: ${DEFAULT-VALUE}, the "
                    + "lesson's: the derivation on the request's own thread).")
    String heavy;

    @Option(names = "--heavy-count", defaultValue = "1", paramLabel = "H",
            description = "Heavy requests sent together at the round's start (default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 10_000)
    int heavyCount;

    @Option(names = "--light", defaultValue = "/books", paramLabel = "PATH",
            description = "Path of the light requests (default: ${DEFAULT-VALUE}).")
    String light;

    @Option(names = "--light-count", defaultValue = "4", paramLabel = "K",
            description = "Light requests per round (default: ${DEFAULT-VALUE}).")
    @Range(min = 0, max = 10_000)
    int lightCount;

    @Option(names = "--gap-ms", defaultValue = "50", paramLabel = "G",
            description = "Milliseconds between the heavy and the light requests (default: ${DEFAULT-VALUE}).")
    long gapMs;

    @Option(names = "--rounds", defaultValue = "1", paramLabel = "R",
            description = "Rounds, one after the other (default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 10_000)
    int rounds;

    @Option(names = "--keep-alive", description = "Reuse connections instead of one fresh connection per request.")
    boolean keepAlive;

    @Option(names = "--stages", description = "Ask the server for each request's stages (Loan-Timing: on) and print "
            + "them per request: the client's ms, each stage's ms, the server's total and outside (client minus "
            + "server: the network, the client, and waits the server cannot see). The server answers with them only "
            + "when it runs with --stages on.")
    boolean stages;

    @Option(names = "--timeout", defaultValue = "120s", paramLabel = "DURATION",
            converter = Converters.DurationConverter.class,
            description = "Read timeout of each request, e.g. 30s, 500ms (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Mixin
    MeasureOptions.Label run;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write every request's offset and duration (ms) "
            + "and the configuration to FILE; with --stages also its stages and its origin on the server's clock "
            + "(what chart stages draws).")
    Path json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Target target = validate();
        ProbeReport.Config config = new ProbeReport.Config(target.toString(), heavy, heavyCount, light, lightCount,
                gapMs, rounds, keepAlive, run.label);
        List<ProbeReport.Round> done = new ArrayList<>();
        boolean explained = false;
        try (Requester requester = new Requester(target, keepAlive, timeout, heavyCount + lightCount,
                stages)) {
            requester.get(light); // warm-up: class loading and JIT on both sides, not measured
            for (int r = 1; r <= rounds; r++) {
                ProbeReport.Round round = round(requester, r);
                done.add(round);
                print(round);
                if (stages && !explained && StageTable.anyWithout(round.requests())) {
                    System.out.println(StageTable.NO_STAGES);
                    explained = true;
                }
            }
        }
        ProbeReport report = new ProbeReport(config, done, ProbeReport.Summary.of(done));
        if (rounds > 1) {
            printSummary(report.summary());
        }
        if (json != null) {
            Results.write(json, report);
        }
        return report.summary().failed() == 0 ? 0 : 1;
    }

    private Target validate() {
        return UsageError.orUsage(spec.commandLine(), () -> {
            Target target = server.target();
            Target.path("--heavy", heavy);
            Target.path("--light", light);
            UsageError.checkRanges(this);
            if (gapMs < 0 || gapMs > 60_000) {
                throw UsageError.invalid("--gap-ms", "0 to 60000", gapMs);
            }
            target.requireReachable(Duration.ofSeconds(5));
            return target;
        });
    }

    private ProbeReport.Round round(Requester requester, int number) throws InterruptedException {
        int total = heavyCount + lightCount;
        Outcome[] outcomes = new Outcome[total];
        List<Thread> threads = new ArrayList<>(total);
        long start = System.nanoTime();
        for (int i = 0; i < heavyCount; i++) {
            int slot = i;
            threads.add(Thread.ofVirtual().start(() -> outcomes[slot] = requester.get(heavy)));
        }
        long lightAt = start + TimeUnit.MILLISECONDS.toNanos(gapMs);
        for (long left; (left = lightAt - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
        for (int i = heavyCount; i < total; i++) {
            int slot = i;
            threads.add(Thread.ofVirtual().start(() -> outcomes[slot] = requester.get(light)));
        }
        for (Thread t : threads) {
            t.join();
        }
        List<ProbeReport.Request> requests = new ArrayList<>(total);
        for (int i = 0; i < total; i++) {
            boolean isHeavy = i < heavyCount;
            String name = isHeavy ? (heavyCount == 1 ? "heavy" : "heavy-" + (i + 1)) : "light-" + (i - heavyCount + 1);
            requests.add(ProbeReport.Request.of(name, isHeavy ? "heavy" : "light", start, outcomes[i]));
        }
        return new ProbeReport.Round(number, requests);
    }

    private void print(ProbeReport.Round round) {
        String lights = lightCount == 0 ? "" : ", %d x light %s %d ms later".formatted(lightCount, light, gapMs);
        System.out.printf("--- round %d/%d: %s%s%s%s ---%n", round.round(), rounds,
                heavyCount == 1 ? "heavy " : heavyCount + " x heavy ", heavy, lights, keepAlive ? ", keep-alive" : "");
        for (ProbeReport.Request r : round.requests()) {
            String problem = r.error() != null ? "  (error: " + r.error() + ")"
                    : r.status() >= 400 ? "  (status " + r.status() + ")" : "";
            System.out.printf("%-8s %.3f s%s%n", r.name(), r.durationMs() / 1000, problem);
        }
        if (stages) {
            StageTable.print(round.requests(), System.out);
        }
        System.out.flush();
    }

    private void printSummary(ProbeReport.Summary s) {
        System.out.printf("--- summary over %d rounds ---%n", rounds);
        System.out.printf("heavy    median %.3f s  max %.3f s%n", s.heavyMedianS(), s.heavyMaxS());
        if (lightCount > 0) {
            System.out.printf("light    median %.3f s  max %.3f s%n", s.lightMedianS(), s.lightMaxS());
            System.out.printf("light/heavy %.4f (median light / median heavy)%n", s.lightOverHeavy());
        }
        if (s.failed() > 0) {
            System.out.printf("failed   %d requests%n", s.failed());
        }
        if (lightCount > 0) {
            System.out.println("reading: " + s.reading());
        }
        System.out.flush();
    }
}
