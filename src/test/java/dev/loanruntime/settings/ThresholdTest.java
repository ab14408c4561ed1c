package dev.loanruntime.settings;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ThresholdTest {
    @Test
    void offLogsNothing() {
        Threshold off = Threshold.parse("off");
        assertThat(off.on(), is(false));
        assertThat(off.reachedBy(Duration.ofSeconds(10)), is(false));
        assertThat(off.label(), is("off"));
    }

    @Test
    void aThresholdLogsThePinsThatLastAtLeastThatLong() {
        Threshold log = Threshold.parse("20ms");
        assertThat(log.reachedBy(Duration.ofMillis(19)), is(false));
        assertThat(log.reachedBy(Duration.ofMillis(20)), is(true));
        assertThat(log.label(), is("20ms"));
        assertThat(Threshold.parse("1s").threshold(), is(Duration.ofSeconds(1)));
        assertThat(Threshold.parse(Threshold.parse("1s").label()), is(Threshold.parse("1s")));
    }

    @Test
    void aBadValueIsNamed() {
        for (String bad : new String[] {"20", "-1ms", "20 ms", "on", ""}) {
            assertThat(assertThrows(IllegalArgumentException.class, () -> Threshold.parse(bad)).getMessage(),
                    is("expected off or a duration such as 20ms or 1s but was '" + bad + "'"));
        }
    }
}
