package dev.loanruntime;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import dev.loanruntime.cli.SettingsDefaults;
import dev.loanruntime.cli.UsageError;
import dev.loanruntime.attach.AttachCommand;
import dev.loanruntime.cluster.ClusterCommand;
import dev.loanruntime.chart.ChartCommand;
import dev.loanruntime.client.DeriveCommand;
import dev.loanruntime.client.LoadCommand;
import dev.loanruntime.client.ProbeCommand;
import dev.loanruntime.client.WatchCommand;
import dev.loanruntime.protocol.PrimaryWatch;
import dev.loanruntime.report.DocsCommand;
import dev.loanruntime.report.IntervalCommand;
import dev.loanruntime.serve.ServeCommand;
import dev.loanruntime.serve.StartTimeline;

/**
 * The command line: {@code serve} (the default), and the measurement and cluster commands. Bad usage exits with
 * status 2 and one line that names the bad value.
 */
@Command(name = "loan-runtime",
         mixinStandardHelpOptions = true,
         versionProvider = Main.Version.class,
         description = "A library loan service that makes the JVM runtime's scaling rules visible by measuring them.%n"
                 + "Without a subcommand, runs 'serve'.")
public final class Main implements Runnable {
    private static final Set<String> TOP_LEVEL = Set.of("-h", "--help", "-V", "--version");
    /**
     * The subcommands, in the order the help lists them. picocli builds a command's model from its annotations when
     * it is added, a visible part of a server's start for all of them: a command line that names one gets only it.
     */
    private static final Map<String, Class<?>> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("serve", ServeCommand.class);
        COMMANDS.put("cluster", ClusterCommand.class);
        COMMANDS.put("probe", ProbeCommand.class);
        COMMANDS.put("load", LoadCommand.class);
        COMMANDS.put("watch", WatchCommand.class);
        COMMANDS.put("chart", ChartCommand.class);
        COMMANDS.put("derive", DeriveCommand.class);
        COMMANDS.put("docs", DocsCommand.class);
        COMMANDS.put("interval", IntervalCommand.class);
        COMMANDS.put("attach", AttachCommand.class);
        COMMANDS.put("help", CommandLine.HelpCommand.class);
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        StartTimeline.mark("main");
        // First, before seconds of class loading and warm-up: a cluster's worker or spare whose primary dies while
        // it starts must not live on until it serves. The primary starts them with 'serve' first.
        if (args.length > 0 && "serve".equals(args[0])) {
            PrimaryWatch.startIfWorker();
        }
        // Always exit explicitly: under mvn exec:java, Maven would otherwise wait on Helidon's daemon timer threads.
        System.exit(run(args));
    }

    /** Runs the command line and returns the exit status (0 ok, 1 failure, 2 usage). */
    public static int run(String... args) {
        return run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    /** Runs the command line with picocli's own output (help, usage errors) going to {@code out} and {@code err}. */
    static int run(PrintWriter out, PrintWriter err, String... args) {
        return run(out, err, new SettingsDefaults(), args);
    }

    /** {@link #run(PrintWriter, PrintWriter, String...)} with the environment and configuration of {@code defaults}. */
    static int run(PrintWriter out, PrintWriter err, SettingsDefaults defaults, String... args) {
        CommandLine cli = commandLine(needed(args));
        cli.setOut(out)
                .setErr(err)
                .setDefaultValueProvider(defaults)
                // a bad value that came from the environment or application.yaml is named by where it was set
                .setParameterExceptionHandler((e, a) -> UsageError.handle(e, a, defaults::sourceOf));
        // Every command's -V/--version (mixinStandardHelpOptions) prints this line: picocli hands a subcommand no
        // version provider of its parent's, and without one -V prints nothing.
        withVersion(cli, new Version());
        // A first word that is neither an option (nor picocli's @FILE of arguments) nor a command is a mistyped
        // command, not an argument of serve.
        if (args.length > 0 && !args[0].startsWith("-") && !args[0].startsWith("@")
                && !COMMANDS.containsKey(args[0])) {
            return UsageError.handle(new CommandLine.ParameterException(cli,
                    UsageError.unknownCommand(args[0], COMMANDS.keySet())), args);
        }
        return cli.execute(withDefaultSubcommand(cli, args));
    }

    /** The whole command line: every subcommand. */
    static CommandLine commandLine() {
        return commandLine(COMMANDS.keySet());
    }

    /** The command line with only the subcommands {@code names}. */
    private static CommandLine commandLine(Set<String> names) {
        CommandLine cli = new CommandLine(new Main());
        for (String name : names) {
            // a CommandLine of its own: picocli applies a command's model transformer only in that constructor
            cli.addSubcommand(name, new CommandLine(COMMANDS.get(name)));
        }
        return cli;
    }

    /**
     * The subcommands {@code args} can reach: the one they name, serve when they start with one of its options (or
     * are empty), every one for the top-level help and version, {@code help} and an {@code @FILE} of arguments.
     */
    private static Set<String> needed(String[] args) {
        if (args.length > 0 && COMMANDS.containsKey(args[0]) && !args[0].equals("help")) {
            return Set.of(args[0]);
        }
        boolean serveOptions = args.length == 0 || args[0].startsWith("-") && !TOP_LEVEL.contains(args[0]);
        return serveOptions ? Set.of("serve") : COMMANDS.keySet();
    }

    @Override
    public void run() {
        // Only reached with no arguments at all, which withDefaultSubcommand turns into 'serve'.
        spec.commandLine().usage(System.out);
    }

    /** Gives every subcommand of {@code command}, at any depth, the root's version provider. */
    private static void withVersion(CommandLine command, Version version) {
        for (CommandLine sub : command.getSubcommands().values()) {
            sub.getCommandSpec().versionProvider(version);
            withVersion(sub, version);
        }
    }

    private static String[] withDefaultSubcommand(CommandLine cli, String[] args) {
        boolean startsWithSubcommand = args.length > 0 && COMMANDS.containsKey(args[0]);
        boolean topLevelOnly = args.length > 0 && TOP_LEVEL.contains(args[0]);
        if (startsWithSubcommand || topLevelOnly) {
            return args;
        }
        String[] withServe = new String[args.length + 1];
        withServe[0] = "serve";
        System.arraycopy(args, 0, withServe, 1, args.length);
        return withServe;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"loan-runtime " + (version == null ? "(development)" : version) + ", commit "
                    + commit() + " on Java " + Runtime.version()};
        }

        /** The commit the classes were built from (the build writes it; "-dirty": with uncommitted changes). */
        static String commit() {
            try (InputStream in = Main.class.getResourceAsStream("build-commit.txt")) {
                return in == null ? "unknown" : new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                return "unknown";
            }
        }
    }
}
