package dev.loanruntime.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import dev.loanruntime.cli.Defaults;
import dev.loanruntime.cli.Range;
import dev.loanruntime.cli.ServerCommand;
import dev.loanruntime.cli.Signals;
import dev.loanruntime.cli.UsageError;
import dev.loanruntime.serve.ServeOptions;

/**
 * {@code cluster}: a primary that runs N worker JVMs, each serving on the same host and port with
 * {@code SO_REUSEPORT}. SIGTERM/SIGINT stop them all (exit 0); SIGHUP replaces them one at a time.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true, modelTransformer = ClusterCommand.SharedPort.class,
         description = {"Run several worker JVMs of the loan service on one port (SO_REUSEPORT); the kernel spreads "
                 + "connections among them. A worker that dies is replaced; SIGHUP replaces all of them one at a "
                 + "time; SIGTERM or SIGINT stops them all.",
                 "Every serve option is passed to each worker. Defaults come from LOAN_CLUSTER_<OPTION> or "
                         + "application.yaml (loan.cluster.<option>), then as for serve."})
public final class ClusterCommand implements Callable<Integer>, ServerCommand {
    @Mixin
    ServeOptions serve;

    @Option(names = "--workers", defaultValue = "3", paramLabel = "N",
            description = "Worker processes (default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 64)
    int workers;

    @Option(names = "--spares", defaultValue = "1", paramLabel = "N",
            description = "Warm spare worker JVMs that do not listen until a worker dies; one then takes the dead "
                    + "worker's place within milliseconds instead of a JVM's start. 0: none (default: "
                    + "${DEFAULT-VALUE}).")
    @Range(min = 0, max = 8)
    int spares;

    @Option(names = "--kill-timeout", defaultValue = "15", paramLabel = "SECONDS",
            description = "How long a stopping worker may finish its requests before SIGKILL, counted after its "
                    + "--drain-delay; longer than the server's shutdown grace period (default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 3600)
    int killTimeout;

    @Option(names = "--start-timeout", defaultValue = "60", paramLabel = "SECONDS",
            description = "How long a new worker may take to listen before it counts as failed "
                    + "(default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 3600)
    int startTimeout;

    @Option(names = "--min-uptime", defaultValue = "5", paramLabel = "SECONDS",
            description = "A worker that dies sooner after it started listening, or before, failed fast "
                    + "(default: ${DEFAULT-VALUE}).")
    @Range(min = 0, max = 3600)
    int minUptime;

    @Option(names = "--max-fast-failures", defaultValue = "10", paramLabel = "N",
            description = "Fast failures in a row of one worker after which the cluster stops with status 1 "
                    + "(default: ${DEFAULT-VALUE}).")
    @Range(min = 1, max = 1000)
    int maxFastFailures;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        ServeOptions options = serve.validated(spec.commandLine());
        UsageError.orUsage(spec.commandLine(), () -> UsageError.checkRanges(this));
        if (options.listener().port() == 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), UsageError.invalid("--port",
                    "an integer from 1 to 65535", 0).getMessage() + " (workers must share one known port)");
        }
        // A worker told to stop first drains (SIGTERM: not-ready, still serving), then finishes its requests.
        Duration killAfter = Duration.ofSeconds(killTimeout).plus(options.listener().drainDelay());
        Primary.Settings settings = new Primary.Settings(workers, spares, killAfter,
                Duration.ofSeconds(startTimeout),
                RestartPolicy.Settings.of(Duration.ofSeconds(minUptime), maxFastFailures));
        RollingRestart.queueWarning(Path.of("/proc/sys/net/ipv4/tcp_migrate_req")).ifPresent(System.err::println);
        RollingRestart.hangupWarning(Path.of("/proc/self/status")).ifPresent(System.err::println);
        WorkerLauncher launcher = new WorkerLauncher(spec.root().userObject().getClass(), options);
        Primary primary = new Primary(settings, launcher::builder, System.out, System.err);
        // Our own handlers: a requested stop stops the workers first and then exits 0, not 128 + signal.
        Signals.on("TERM", primary::requestStop);
        Signals.on("INT", primary::requestStop);
        Signals.on("HUP", primary::requestRollingRestart);
        return primary.run();
    }

    /**
     * serve's {@code --port} with the cluster's help: the option and its field are serve's ({@link ServeOptions}), but
     * "0 for any free port" is not true here, where {@link #call()} refuses 0. Runs once, when picocli builds the
     * command from its annotations.
     */
    static final class SharedPort implements CommandLine.IModelTransformer {
        @Override
        public CommandLine.Model.CommandSpec transform(CommandLine.Model.CommandSpec command) {
            CommandLine.Model.OptionSpec port = command.findOption("--port");
            command.remove(port);
            command.addOption(CommandLine.Model.OptionSpec.builder(port)
                    .description("Port that every worker binds (SO_REUSEPORT); 0 is refused, since the workers must "
                            + "share one known port (default: ${DEFAULT-VALUE}, the cluster's own; serve's is "
                            + Defaults.PORT + ").")
                    .build());
            return command;
        }
    }
}
