package dev.loanruntime.client;

import picocli.CommandLine.Option;

/**
 * The options that {@code probe} and {@code load} share, each a picocli mixin, so that each is written once: its
 * name, default and help. A mixin's options stand in a command's help where the command declares the mixin.
 */
final class MeasureOptions {
    /** The last paragraph of both commands' help. */
    static final String EXIT_STATUS = "Exit status: 0 when every request got a 2xx/3xx answer, 1 when some did not, "
            + "2 on bad options or when nothing listens at --url.";

    private MeasureOptions() {
    }

    /** {@code --url}: the running server to measure. */
    static final class Url {
        @Option(names = "--url", defaultValue = Target.DEFAULT, paramLabel = "URL",
                description = "Server base URL (default: ${DEFAULT-VALUE}).")
        String url;

        /** The server; the error names {@code --url} and the bad value. */
        Target target() {
            return Target.parse(url);
        }
    }

    /** {@code --label}: the run's name in its JSON and in the charts drawn from it. */
    static final class Label {
        @Option(names = "--label", paramLabel = "TEXT",
                description = "A name for this run, stored in the JSON and used as the chart's legend.")
        String label;
    }
}
