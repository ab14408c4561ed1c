package dev.loanruntime.report;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code interval}: the median of some measurements with its 95 % bootstrap interval, and with {@code --goal} whether
 * they settle it (held, failed, inconclusive). The experiments' verdicts on paired ratios call it
 * (experiments/lib/record.sh). Runs on the caller's thread.
 */
@Command(name = "interval", mixinStandardHelpOptions = true,
         description = {"Print the median of VALUE... and its 95%% bootstrap interval: MEDIAN LOW HIGH N, and with "
                 + "--goal the outcome (held: the whole interval meets the goal; failed: none of it; inconclusive).",
                 "A value '-' (not measured) is left out."})
public final class IntervalCommand implements Callable<Integer> {
    @Option(names = "--goal", paramLabel = "'OP LIMIT'", description = "A goal such as '>= 0.9' (OP: >=, >, <=, <).")
    String goal;

    @Parameters(paramLabel = "VALUE", arity = "0..*", description = "The measurements, e.g. one ratio per pair.")
    List<String> values = new ArrayList<>();

    @Override
    public Integer call() {
        List<Double> numbers = new ArrayList<>();
        for (String v : values) {
            if (v.equals("-")) {
                continue;
            }
            try {
                numbers.add(Double.parseDouble(v));
            } catch (NumberFormatException e) {
                return usage("'" + v + "' is not a number");
            }
        }
        String op = null;
        double limit = 0;
        if (goal != null) {
            String[] words = goal.trim().split("\\s+");
            if (words.length != 2 || !List.of(">=", ">", "<=", "<").contains(words[0])) {
                return usage("--goal '" + goal + "' is not 'OP LIMIT' with OP one of >=, >, <=, <");
            }
            op = words[0];
            try {
                limit = Double.parseDouble(words[1]);
            } catch (NumberFormatException e) {
                return usage("--goal '" + goal + "': '" + words[1] + "' is not a number");
            }
        }
        if (numbers.isEmpty()) {
            // Nothing measured: a goal cannot be settled, and scripts read "-" as a missing figure.
            System.out.println("- - - 0" + (op == null ? "" : " inconclusive"));
            return 0;
        }
        Interval i = Interval.ofMedian(numbers);
        System.out.println(String.format(Locale.ROOT, "%s %s %s %d", plain(i.median()), plain(i.low()),
                plain(i.high()), i.n()) + (op == null ? "" : " " + i.against(op, limit)));
        return 0;
    }

    private static String plain(double v) {
        return new BigDecimal(String.format(Locale.ROOT, "%.6g", v)).stripTrailingZeros().toPlainString();
    }

    private static int usage(String message) {
        System.err.println("interval: " + message);
        return 2;
    }
}
