package dev.loanruntime.runtime;

/** The one usage error of every integer option outside its range, whichever command has the option. */
public final class OptionRange {
    private OptionRange() {
    }

    /**
     * Checks that {@code value} of {@code option} lies in [{@code min}, {@code max}].
     *
     * @throws IllegalArgumentException naming the option, the range and the bad value
     */
    public static void check(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("Invalid value for option '" + option + "': expected an integer from "
                    + min + " to " + max + " but was '" + value + "'");
        }
    }
}
