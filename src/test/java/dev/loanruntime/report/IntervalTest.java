package dev.loanruntime.report;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import dev.loanruntime.testing.CliRun;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.closeTo;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

/** The median's bootstrap interval, and the three outcomes a goal can have against it. */
@ResourceLock(Resources.SYSTEM_OUT)   // CliRun swaps System.out and System.err
@ResourceLock(Resources.SYSTEM_ERR)
class IntervalTest {
    @Test
    void threeValuesGiveTheirRangeAsTheInterval() {
        // With three values a resample's median is the lowest about 26 % of the time, so the interval is the range.
        Interval i = Interval.ofMedian(List.of(0.796, 1.05, 0.806));
        assertThat(i.median(), is(0.806));
        assertThat(i.low(), is(0.796));
        assertThat(i.high(), is(1.05));
        assertThat(i.n(), is(3));
    }

    @Test
    void moreValuesNarrowTheIntervalAroundTheMedian() {
        List<Double> tight = List.of(0.95, 0.96, 0.97, 0.97, 0.98, 0.98, 0.99, 1.0, 1.01, 1.3, 0.5);
        Interval i = Interval.ofMedian(tight);
        assertThat(i.median(), is(0.98));
        assertThat("an outlier at each end stays outside", i.high(), lessThan(1.3));
        assertThat(i.low() > 0.5, is(true));
        assertThat(i.high() - i.low(), lessThan(0.1));
    }

    @Test
    void theSameValuesGiveTheSameIntervalEveryTime() {
        List<Double> v = List.of(1.02, 0.97, 0.99, 1.05, 0.93, 1.01, 0.98);
        assertThat(Interval.ofMedian(v), is(Interval.ofMedian(v)));
    }

    @Test
    void aGoalHoldsFailsOrIsInconclusive() {
        Interval i = new Interval(0.97, 0.95, 0.99, 5);
        assertThat(i.against(">=", 0.9), is(Interval.Outcome.HELD));
        assertThat(i.against(">=", 1.0), is(Interval.Outcome.FAILED));
        assertThat(i.against(">=", 0.97), is(Interval.Outcome.INCONCLUSIVE));
        assertThat(i.against("<", 0.95), is(Interval.Outcome.FAILED));
        assertThat(i.against("<=", 0.99), is(Interval.Outcome.HELD));
        assertThat(i.toString(), is("0.970 [0.950, 0.990]"));
    }

    @Test
    void theCommandPrintsTheIntervalAndTheOutcome() {
        CliRun run = CliRun.of("interval", "--goal", ">= 0.9", "0.796", "1.05", "-", "0.806");
        assertThat(run.err(), run.code(), is(0));
        assertThat(run.out().trim(), is("0.806 0.796 1.05 3 inconclusive"));
        String[] words = CliRun.of("interval", "1", "2", "3", "4").out().trim().split(" ");
        assertThat(Double.parseDouble(words[0]), closeTo(2.5, 1e-9));
        assertThat(CliRun.of("interval", "--goal", "<= 1", "-").out().trim(), is("- - - 0 inconclusive"));
    }

    @Test
    void badValuesAndGoalsAreUsageErrorsNamingThem() {
        CliRun notNumber = CliRun.of("interval", "1", "fast");
        assertThat(notNumber.code(), is(2));
        assertThat(notNumber.err(), containsString("'fast' is not a number"));
        CliRun badGoal = CliRun.of("interval", "--goal", "about 1", "1");
        assertThat(badGoal.code(), is(2));
        assertThat(badGoal.err(), containsString("'about 1'"));
    }
}
