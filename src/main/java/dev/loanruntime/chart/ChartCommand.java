package dev.loanruntime.chart;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import dev.loanruntime.cli.UsageError;
import dev.loanruntime.client.Results;

/**
 * {@code chart}: draws a PNG from the JSON files that {@code probe --json} and {@code load --json} wrote, or from the
 * bar data ({@link BarData}) that an experiment script wrote. Runs on the caller's thread; blocks on file I/O.
 */
@Command(name = "chart", mixinStandardHelpOptions = true,
         description = "Draw a PNG chart (headless) from measurement JSON files.",
         subcommands = {ChartCommand.Timeline.class, ChartCommand.Scaling.class, ChartCommand.Cdf.class,
                        ChartCommand.Bars.class, ChartCommand.Lines.class, ChartCommand.Stages.class})
public final class ChartCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "Missing subcommand: expected one of timeline, scaling, cdf, bars, lines, stages");
    }

    @Command(name = "timeline", mixinStandardHelpOptions = true,
             description = "One bar per request, start to end, for the last round of each probe JSON file: "
                     + "light requests that waited for the heavy one end where it ends.")
    static final class Timeline implements Callable<Integer> {
        @Mixin Chart chart;
        @Option(names = "--title", defaultValue = "Requests over time", paramLabel = "TEXT",
                description = "Chart title.")
        String title;
        @Parameters(arity = "1..*", paramLabel = "PROBE_JSON") List<Path> files;

        @Override
        public Integer call() {
            List<Charts.Lane> lanes = new ArrayList<>();
            for (Path file : files) {
                JsonNode report = chart.read(file);
                JsonNode rounds = report.path("rounds");
                if (rounds.isEmpty()) {
                    throw chart.usage(file + " has no probe rounds to draw (its \"rounds\" is missing or empty)");
                }
                JsonNode last = rounds.get(rounds.size() - 1);
                List<Charts.Bar> bars = new ArrayList<>();
                for (JsonNode r : last.path("requests")) {
                    double start = r.path("startMs").asDouble() / 1000;
                    double end = start + r.path("durationMs").asDouble() / 1000;
                    bars.add(new Charts.Bar(r.path("kind").asText(), start, end));
                }
                lanes.add(new Charts.Lane(label(report, file), bars));
            }
            return chart.draw(out -> Charts.timeline(out, title, lanes));
        }
    }

    @Command(name = "scaling", mixinStandardHelpOptions = true,
             description = "Throughput of load JSON files against a numeric setting, given as X=FILE pairs, "
                     + "e.g. 1=pool-1.json 2=pool-2.json; --mark draws a vertical line (e.g. at the core count).")
    static final class Scaling implements Callable<Integer> {
        @Mixin Chart chart;
        @Option(names = "--title", defaultValue = "Throughput", paramLabel = "TEXT", description = "Chart title.")
        String title;
        @Option(names = "--x-label", defaultValue = "setting", paramLabel = "TEXT",
                description = "X axis label, with its unit.")
        String xLabel;
        @Option(names = "--y-label", defaultValue = "requests per second", paramLabel = "TEXT",
                description = "Y axis label.")
        String yLabel;
        @Option(names = "--series", defaultValue = "measured", paramLabel = "TEXT", description = "Legend of the line.")
        String series;
        @Option(names = "--mark", paramLabel = "X", description = "Draw a vertical line at X.") Double mark;
        @Option(names = "--mark-label", defaultValue = "", paramLabel = "TEXT", description = "Label of that line.")
        String markLabel;
        @Parameters(arity = "1..*", paramLabel = "X=LOAD_JSON") List<String> pairs;

        @Override
        public Integer call() {
            double[][] xy = new double[pairs.size()][];
            for (int i = 0; i < pairs.size(); i++) {
                String pair = pairs.get(i);
                int eq = pair.indexOf('=');
                double x;
                try {
                    x = Double.parseDouble(pair.substring(0, Math.max(eq, 0)));
                } catch (NumberFormatException e) {
                    throw chart.usage("Invalid value for X=LOAD_JSON: "
                            + "expected a number, '=', a file, e.g. 4=pool-4.json but was '" + pair + "'");
                }
                xy[i] = new double[] {x, chart.read(Path.of(pair.substring(eq + 1))).path("throughputPerS").asDouble()};
            }
            return chart.draw(out -> Charts.scaling(out, title, xLabel, yLabel, series, xy, mark, markLabel));
        }
    }

    @Command(name = "cdf", mixinStandardHelpOptions = true,
             description = "Latency distributions of load JSON files: the share of requests answered within x ms.")
    static final class Cdf implements Callable<Integer> {
        @Mixin Chart chart;
        @Option(names = "--title", defaultValue = "Latency distribution", paramLabel = "TEXT",
                description = "Chart title.")
        String title;
        @Option(names = "--log", description = "Logarithmic latency axis.") boolean log;
        @Parameters(arity = "1..*", paramLabel = "LOAD_JSON") List<Path> files;

        @Override
        public Integer call() {
            List<Charts.Curve> curves = new ArrayList<>();
            for (Path file : files) {
                JsonNode report = chart.read(file);
                List<double[]> points = new ArrayList<>();
                for (JsonNode p : report.path("cdf")) {
                    points.add(new double[] {p.path("percentile").asDouble(), p.path("ms").asDouble()});
                }
                curves.add(new Charts.Curve(label(report, file), points.toArray(double[][]::new)));
            }
            return chart.draw(out -> Charts.cdf(out, title, curves, log));
        }
    }

    @Command(name = "bars", mixinStandardHelpOptions = true,
             description = {"Bars by category from a JSON file of the form {\"categories\": [\"a\", \"b\"], "
                     + "\"series\": [{\"label\": \"s\", \"values\": [1, 2]}]}: one colour per series, side by side "
                     + "(or stacked), each bar labelled with its value.",
                     "--mark draws a horizontal line (e.g. at an even share)."})
    static final class Bars implements Callable<Integer> {
        @Mixin Chart chart;
        @Option(names = "--title", defaultValue = "Counts", paramLabel = "TEXT", description = "Chart title.")
        String title;
        @Option(names = "--x-label", defaultValue = "", paramLabel = "TEXT", description = "Category axis label.")
        String xLabel;
        @Option(names = "--y-label", defaultValue = "count", paramLabel = "TEXT",
                description = "Value axis label, with its unit.")
        String yLabel;
        @Option(names = "--stacked", description = "Stack the series' bars instead of placing them side by side.")
        boolean stacked;
        @Option(names = "--log", description = "A logarithmic value axis, for values that span several powers of ten "
                + "(every value must be above 0).") boolean log;
        @Option(names = "--mark", paramLabel = "Y", description = "Draw a horizontal line at Y.") Double mark;
        @Option(names = "--mark-label", defaultValue = "", paramLabel = "TEXT", description = "Label of that line.")
        String markLabel;
        @Parameters(paramLabel = "BARS_JSON") Path file;

        @Override
        public Integer call() {
            BarData data = chart.orUsage(() -> BarData.of(Results.read(file), file).checkedForLog(log, file));
            return chart.draw(out -> Charts.bars(out, title, xLabel, yLabel, data, stacked, log, mark, markLabel));
        }
    }

    @Command(name = "lines", mixinStandardHelpOptions = true,
             description = "Lines from a JSON file of the form {\"series\": [{\"label\": \"s\", \"points\": "
                     + "[[1, 2.5], [2, 4]]}]}: one colour per series, a marker at each point.")
    static final class Lines implements Callable<Integer> {
        @Mixin Chart chart;
        @Option(names = "--title", defaultValue = "Lines", paramLabel = "TEXT", description = "Chart title.")
        String title;
        @Option(names = "--x-label", defaultValue = "", paramLabel = "TEXT",
                description = "X axis label, with its unit.")
        String xLabel;
        @Option(names = "--y-label", defaultValue = "", paramLabel = "TEXT",
                description = "Y axis label, with its unit.")
        String yLabel;
        @Option(names = "--log", description = "A logarithmic y axis (every y must be above 0).") boolean log;
        @Parameters(paramLabel = "LINES_JSON") Path file;

        @Override
        public Integer call() {
            LineData data = chart.orUsage(() -> LineData.of(Results.read(file), file, log));
            return chart.draw(out -> Charts.lines(out, title, xLabel, yLabel, data, log));
        }
    }

    @Command(name = "stages", mixinStandardHelpOptions = true,
             description = {"The stages of every request of the last round of each probe --stages --json file: one "
                     + "panel per file (e.g. one per execution model), titled with its --label, one horizontal bar "
                     + "per request made of its stages in the order a request lives them (carrier, line, idle, "
                     + "headers, admit, queue, handler, crypto-queue, derive, resume), each stage in one colour.",
                     "Bars start at the request's origin on the server's clock, so the requests of a round line up "
                     + "on one time axis: on one carrier, a light request's carrier wait ends where the heavy "
                     + "request's handler ends."})
    static final class Stages implements Callable<Integer> {
        @Mixin Chart chart;
        @Option(names = "--title", defaultValue = "Where each request waited", paramLabel = "TEXT",
                description = "Chart title.")
        String title;
        @Parameters(arity = "1..*", paramLabel = "PROBE_JSON") List<Path> files;

        @Override
        public Integer call() {
            List<StageBars> panels = new ArrayList<>();
            for (Path file : files) {
                JsonNode report = chart.read(file);
                panels.add(chart.orUsage(() -> StageBars.of(report, file, label(report, file))));
            }
            return chart.draw(out -> StageChart.draw(out, title, panels));
        }
    }

    /**
     * What every chart subcommand has, a picocli mixin: {@code --out}, the PNG it writes, and its usage errors
     * (exit 2), one line that names the bad file or value.
     */
    static final class Chart {
        @Option(names = "--out", required = true, paramLabel = "PNG", description = "PNG file to write.") Path out;
        @CommandLine.Spec(CommandLine.Spec.Target.MIXEE) CommandLine.Model.CommandSpec spec;

        /** Draws the chart into {@code --out} and says where; the subcommand's exit status. */
        int draw(Consumer<Path> drawer) {
            drawer.accept(out);
            System.out.println("chart " + out);
            return 0;
        }

        /** The file's JSON; an unreadable file is a usage error that names it. */
        JsonNode read(Path file) {
            return orUsage(() -> Results.read(file));
        }

        /** What {@code read} makes of the input; its {@link IllegalArgumentException} becomes a usage error. */
        <T> T orUsage(Supplier<T> read) {
            return UsageError.orUsage(spec.commandLine(), read);
        }

        /** A usage error of the subcommand with this message. */
        CommandLine.ParameterException usage(String message) {
            return new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }

    private static String label(JsonNode report, Path file) {
        JsonNode label = report.path("config").path("label");
        return label.isTextual() ? label.asText() : file.getFileName().toString().replaceFirst("\\.json$", "");
    }
}
