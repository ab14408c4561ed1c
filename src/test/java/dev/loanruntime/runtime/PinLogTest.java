package dev.loanruntime.runtime;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PinLogTest {
    @Test
    void offLogsNothing() {
        PinLog off = PinLog.parse("off");
        assertThat(off.on(), is(false));
        assertThat(off.logs(Duration.ofSeconds(10)), is(false));
        assertThat(off.label(), is("off"));
    }

    @Test
    void aThresholdLogsThePinsThatLastAtLeastThatLong() {
        PinLog log = PinLog.parse("20ms");
        assertThat(log.logs(Duration.ofMillis(19)), is(false));
        assertThat(log.logs(Duration.ofMillis(20)), is(true));
        assertThat(log.label(), is("20ms"));
        assertThat(PinLog.parse("1s").threshold(), is(Duration.ofSeconds(1)));
        assertThat(PinLog.parse(PinLog.parse("1s").label()), is(PinLog.parse("1s")));
    }

    @Test
    void aBadValueIsNamed() {
        for (String bad : new String[] {"20", "-1ms", "20 ms", "on", ""}) {
            assertThat(assertThrows(IllegalArgumentException.class, () -> PinLog.parse(bad)).getMessage(),
                    is("expected off or a duration such as 20ms or 1s but was '" + bad + "'"));
        }
    }
}
