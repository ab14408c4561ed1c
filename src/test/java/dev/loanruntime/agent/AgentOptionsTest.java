package dev.loanruntime.agent;

import java.time.Duration;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

class AgentOptionsTest {
    @Test
    void noOptionsMeanNoHttpAndTheServersResolution() {
        AgentOptions options = AgentOptions.parse(null);
        assertThat(options.port(), is(OptionalInt.empty()));
        assertThat(options.host(), is("127.0.0.1"));
        assertThat(options.resolution(), is(Duration.ofMillis(10)));
        assertThat(options.logOver().on(), is(false));
        assertThat(options.pins(), is(false));
    }

    @Test
    void everyOptionIsRead() {
        AgentOptions options = AgentOptions.parse("port=9464, host=127.0.0.2,resolution=5ms,log-over=200ms,pins=on");
        assertThat(options.port(), is(OptionalInt.of(9464)));
        assertThat(options.host(), is("127.0.0.2"));
        assertThat(options.resolution(), is(Duration.ofMillis(5)));
        assertThat(options.logOver().threshold(), is(Duration.ofMillis(200)));
        assertThat(options.pins(), is(true));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "colour=red|unknown option 'colour=red' (expected name=value with the names port, host, resolution, "
                    + "log-over, pins)",
            "port|unknown option 'port' (expected name=value with the names port, host, resolution, log-over, pins)",
            "pins=yes|pins: expected on or off but was 'yes'",
            "port=65536|port: expected an integer from 0 to 65535 but was '65536'",
            "port=http|port: expected an integer from 0 to 65535 but was 'http'",
            "resolution=0ms|resolution: expected a duration from 1ms to 1s but was '0ms'",
            "resolution=2s|resolution: expected a duration from 1ms to 1s but was '2s'"})
    void aBadOptionIsNamedWithItsValue(String given, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(given));
        assertThat(e.getMessage(), is(message));
    }
}
