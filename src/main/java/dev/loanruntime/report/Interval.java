package dev.loanruntime.report;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The median of some measurements and its 95 % bootstrap interval: the 2.5th and 97.5th percentiles of the medians of
 * {@value #RESAMPLES} resamples drawn with replacement. The resampling is seeded from the values, so the same values
 * give the same interval on every run and every machine (a record can be rendered again and match).
 *
 * <p>With three values the interval of their median is their range; it narrows only with more of them, which is why
 * the experiments compare servers in at least five interleaved pairs.
 *
 * @param median the median of the values
 * @param low    the interval's lower end
 * @param high   the interval's upper end
 * @param n      how many values it stands on
 */
public record Interval(double median, double low, double high, int n) {
    static final int RESAMPLES = 10_000;

    /** What the values say about a goal such as {@code >= 0.9}. */
    public enum Outcome {
        /** the whole interval meets the goal */
        HELD,
        /** no part of the interval meets it */
        FAILED,
        /** the interval straddles the goal: the values cannot settle it */
        INCONCLUSIVE;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The interval of the values' median; throws when there is none or one is not finite. */
    public static Interval ofMedian(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        if (v.length == 0) {
            throw new IllegalArgumentException("no values to take an interval of");
        }
        for (double x : v) {
            if (!Double.isFinite(x)) {
                throw new IllegalArgumentException("'" + x + "' is not a finite number");
            }
        }
        double median = median(v.clone());
        SplittableRandom random = new SplittableRandom(Arrays.hashCode(v));
        double[] medians = new double[RESAMPLES];
        double[] sample = new double[v.length];
        for (int i = 0; i < RESAMPLES; i++) {
            for (int j = 0; j < v.length; j++) {
                sample[j] = v[random.nextInt(v.length)];
            }
            medians[i] = median(sample);
        }
        Arrays.sort(medians);
        return new Interval(median, medians[(int) Math.floor(0.025 * (RESAMPLES - 1))],
                medians[(int) Math.ceil(0.975 * (RESAMPLES - 1))], v.length);
    }

    /**
     * Held when every value in the interval meets {@code op limit}, failed when none does, else inconclusive.
     *
     * @param op one of {@code >= > <= <}
     */
    public Outcome against(String op, double limit) {
        boolean lowMeets = meets(low, op, limit);
        boolean highMeets = meets(high, op, limit);
        if (lowMeets && highMeets) {
            return Outcome.HELD;
        }
        return lowMeets || highMeets ? Outcome.INCONCLUSIVE : Outcome.FAILED;
    }

    static boolean meets(double value, String op, double limit) {
        return switch (op) {
            case ">=" -> value >= limit;
            case ">" -> value > limit;
            case "<=" -> value <= limit;
            case "<" -> value < limit;
            default -> throw new IllegalArgumentException("'" + op + "' is not a comparison (>=, >, <=, <)");
        };
    }

    /** {@code 0.97 [0.95, 0.99]}, each number as the docs show figures. */
    @Override
    public String toString() {
        return Render.number(median) + " [" + Render.number(low) + ", " + Render.number(high) + "]";
    }

    /** Sorts {@code v} in place and returns its median (the mean of the middle two for an even count). */
    private static double median(double[] v) {
        Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }
}
