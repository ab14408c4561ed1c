package dev.loanruntime.stages;

import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class ClockCheckTest {
    @Test
    void aSlowClockSourceIsNamedInAWarningAndAFastOneIsNot() {
        assertThat(ClockCheck.warning(Optional.of("hpet"), 640).orElseThrow(),
                allOf(containsString("640 ns"), containsString("clock source hpet"), containsString("7.7 µs")));
        assertThat(ClockCheck.warning(Optional.empty(), 500).orElseThrow(), containsString("clock source unknown"));
        assertThat(ClockCheck.warning(Optional.of("tsc"), 25).isPresent(), is(false));
        assertThat(ClockCheck.warning(Optional.of("kvm-clock"), ClockCheck.SLOW_NANOS).isPresent(), is(false));
    }

    @Test
    void theMeasuredCostOfOneCallIsPlausible() {
        double nanos = ClockCheck.nanosPerCall();
        // Any clock source answers in well under 100 µs; zero would mean the calls were not made.
        assertThat(nanos, allOf(greaterThan(1.0), lessThan(100_000.0)));
    }
}
