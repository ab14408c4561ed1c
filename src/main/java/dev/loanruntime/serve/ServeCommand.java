package dev.loanruntime.serve;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

import io.helidon.config.Config;
import io.helidon.logging.common.LogConfig;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import dev.loanruntime.cli.Durations;
import dev.loanruntime.cli.ServerCommand;
import dev.loanruntime.cli.SettingsDefaults;
import dev.loanruntime.cli.Signals;
import dev.loanruntime.protocol.PrimaryWatch;
import dev.loanruntime.protocol.Standby;
import dev.loanruntime.protocol.StatusLines;
import dev.loanruntime.runtime.Carriers;
import dev.loanruntime.monitor.Pinning;
import dev.loanruntime.settings.Switch;
import dev.loanruntime.settings.Threshold;
import dev.loanruntime.stages.Stages;
import dev.loanruntime.stages.ServerTiming;
import dev.loanruntime.store.StoreUnavailableException;

/** {@code serve}: runs the loan service until SIGTERM or SIGINT, then stops gracefully and exits 0. */
@Command(name = "serve", mixinStandardHelpOptions = true,
         description = "Run the loan service. Every option may also come from the environment (LOAN_<OPTION>, "
                 + "e.g. LOAN_CRYPTO_THREADS=8) or from application.yaml (loan.<option>); the command line wins.")
public final class ServeCommand implements Callable<Integer>, ServerCommand {
    private static final int WARM_UP_ROUNDS = 50;
    @Mixin
    ServeOptions args;

    // Set by the cluster primary (through LOAN_WORKER_ID) for the workers it starts; not for people.
    @CommandLine.Option(names = "--worker-id", defaultValue = "0", hidden = true)
    int workerId;

    // Set by the cluster primary for its spares: warm up, then wait for "listen <id>" on stdin before binding.
    @CommandLine.Option(names = Standby.OPTION, hidden = true)
    boolean standby;

    // The build's training run of the JDK's AOT cache: the spares' warm-up, then exit 0.
    @CommandLine.Option(names = "--warm-up-only", hidden = true)
    boolean warmUpOnly;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        StartTimeline.mark("options");
        ServeOptions options = args.validated(spec.commandLine()).asWorker(workerId);
        // Before anything can create a virtual thread: the JDK reads these once, at the first one.
        Carriers.configure(options.execution().carriers());
        LogConfig.configureRuntime();
        Config config = ((SettingsDefaults) spec.commandLine().getDefaultValueProvider()).config();
        if (warmUpOnly) {
            System.out.println(StatusLines.warmUp(WarmUp.run(options, config, WARM_UP_ROUNDS)));
            return 0;
        }
        if (standby) {
            OptionalInt promotedTo;
            try {
                promotedTo = standBy(options, config);
            } catch (IllegalStateException | StoreUnavailableException | UncheckedIOException e) {
                System.err.println("loan-runtime: standby: " + e.getMessage());
                return 1;
            }
            if (promotedTo.isEmpty()) {
                return 0;
            }
            options = options.asWorker(promotedTo.getAsInt());
        }

        var scrypt = options.crypto().scrypt().open();
        scrypt.fallback().ifPresent(why -> System.err.println("loan-runtime: warning: " + why));
        LoanServer server;
        try {
            server = LoanServer.start(options, config, scrypt.hasher());
        } catch (IllegalStateException | StoreUnavailableException e) {
            System.err.println("loan-runtime: " + e.getMessage());
            return 1;
        }
        if (options.observation().pinWatch() == Switch.ON) {
            // Once the listener is up: JFR's start takes a CPU for a good part of a second, which the start needs
            Pinning.watch(options.observation().logPinned(), Stages::leaveOut);
        }
        String host = options.listener().host();
        if ("0.0.0.0".equals(host) || "::".equals(host)) {
            System.err.println("loan-runtime: warning: --host " + host
                    + " accepts connections from other machines; this service has no authentication");
        }
        ObservationOptions observation = options.observation();
        boolean timingShown = observation.stages() == Switch.ON && observation.serverTiming() == ServerTiming.ALWAYS;
        if (timingShown && !loopback(host)) {
            System.err.println("loan-runtime: warning: --server-timing always on " + host
                    + " shows every client where each request's time goes inside this server");
        }
        StopRequest stop = new StopRequest();
        // Our own handlers, so that a requested stop ends with status 0 rather than 128 + signal. SIGTERM (from a
        // deploy, Kubernetes, the cluster's primary) drains first; SIGINT (Ctrl-C) stops accepting at once. Installed
        // before the serving line: whoever sees that line may send a signal at once, and must get a graceful stop.
        Signals.on("TERM", stop::drainFirst);
        Signals.on("INT", stop::now);
        if (options.workerId() > 0) {
            PrimaryWatch.ofThisProcess(false).onGone(stop::now);
        }
        StartTimeline.mark("serving");
        System.out.println(StatusLines.serving(ProcessHandle.current().pid(), options.listener().host(), server.port(),
                servingDetails(server.report(), options, server.adminPort()) + " started-in="
                        + StartTimeline.steps().get("serving") + "ms"));
        System.out.flush();

        long drainMillis = options.listener().drainDelay().toMillis();
        stop.await(options.listener().drainDelay(), () -> {
            server.drain();
            System.out.println(StatusLines.draining(ProcessHandle.current().pid(), drainMillis));
            System.out.flush();
        });
        server.close();
        System.out.println(StatusLines.stopped(ProcessHandle.current().pid()));
        System.out.flush();
        return 0;
    }

    /**
     * What the serving line tells after the address: the admin port's address, the execution model (carriers for
     * virtual threads, the pool's size for platform ones), the crypto pool, the overload protections, the store and
     * the scrypt provider.
     */
    static String servingDetails(RuntimeService.Report r, ServeOptions options, OptionalInt adminPort) {
        Threshold shed = options.overload().shedDelay();
        String admin = adminPort.isPresent()
                ? "http://" + options.listener().host() + ":" + adminPort.getAsInt() : "off";
        String threads = r.platformThreads() > 0 ? "platform-threads=" + r.platformThreads()
                : "carriers=" + r.carriers();
        return ("admin=%s protocols=%s threads=%s %s crypto-threads=%d crypto-queue=%d max-derivations=%d limit=%s "
                + "shed-delay=%s java=%s").formatted(admin, String.join(",", r.protocols()), r.threadModel(), threads,
                        r.cryptoThreads(), r.cryptoQueue(),
                        r.derivationLimit(), r.overload().limit(),
                        shed.on() ? Durations.format(shed.threshold()) : "off", r.javaVersion())
                + " store=" + options.storage().store() + " scrypt=" + r.hasher()
                + (r.hasher().equals(r.scryptDefault()) ? " (default)" : " (default: " + r.scryptDefault() + ")");
    }

    private static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Warms up, says so, and blocks until the primary promotes this spare (its worker id) or goes (empty). */
    private static OptionalInt standBy(ServeOptions options, Config config) throws InterruptedException {
        // A spare has nothing to finish: a stop request ends it at once, with the status of a requested stop.
        Signals.on("TERM", () -> Runtime.getRuntime().exit(0));
        Signals.on("INT", () -> Runtime.getRuntime().exit(0));
        long warmedMillis = WarmUp.run(options, config, WARM_UP_ROUNDS);
        StartTimeline.mark("warmed-up");
        System.out.println(StatusLines.standby(ProcessHandle.current().pid(), warmedMillis));
        System.out.flush();
        OptionalInt promoted = PrimaryWatch.ofThisProcess(true).awaitPromotion();
        StartTimeline.mark("promoted");
        return promoted;
    }
}
