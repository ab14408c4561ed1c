package dev.loanruntime.testing;

import java.util.Map;

import io.helidon.config.Config;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import dev.loanruntime.cli.ServerCommand;
import dev.loanruntime.cli.SettingsDefaults;
import dev.loanruntime.serve.ServeOptions;

/**
 * {@code serve}'s options as its command line fills them in, with an environment of the test's choosing and the
 * project's application.yaml behind the command line, in this JVM: the parsing alone, no server.
 */
public final class ServeLine {
    private ServeLine() {
    }

    /** The options of {@code serve ARGS} with {@code env} as the environment; a bad value throws picocli's error. */
    public static ServeOptions parse(Map<String, String> env, String... args) {
        Serve serve = new Serve();
        CommandLine commandLine = new CommandLine(serve).setDefaultValueProvider(new SettingsDefaults(env,
                Config.create()));
        commandLine.parseArgs(args);
        return serve.options.validated(commandLine);
    }

    @Command(name = "serve")
    static final class Serve implements ServerCommand {
        @Mixin
        ServeOptions options;
    }
}
