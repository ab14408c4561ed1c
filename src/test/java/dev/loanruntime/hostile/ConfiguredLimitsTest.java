package dev.loanruntime.hostile;

import java.time.Duration;

import io.helidon.config.Config;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http2.Http2Config;

import org.junit.jupiter.api.Test;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;


/**
 * The limits in application.yaml parse into Helidon's own configuration objects with the documented values (the
 * other tests in this package show each one acting, with these values or with short ones given as system
 * properties).
 */
class ConfiguredLimitsTest {
    private static final Config CONFIG = Config.create();

    @Test
    void helidonReadsTheServerLimits() {
        WebServerConfig server = WebServerConfig.builder().config(CONFIG.get("server")).buildPrototype();
        assertThat(server.idleConnectionTimeout(), is(Duration.ofSeconds(30)));
        assertThat(server.idleConnectionPeriod(), is(Duration.ofSeconds(5)));
        assertThat(server.maxPayloadSize(), is(16_384L));
        assertThat(server.backlog(), is(8_192));
        assertThat(server.shutdownGracePeriod(), is(Duration.ofSeconds(10)));
        Http1Config http1 = Http1Config.create(CONFIG.get("server.protocols.http_1_1"));
        assertThat(http1.maxPrologueLength(), is(2_048));
        assertThat(http1.maxHeadersSize(), is(8_192));
        Http2Config http2 = Http2Config.create(CONFIG.get("server.protocols.http_2"));
        assertThat(http2.maxConcurrentStreams(), is(250L));
        assertThat(http2.maxHeaderListSize(), is(8_192L));
        assertThat(http2.maxRapidResets(), is(50));
    }

    @Test
    void theHeaderDeadlineIsTenSeconds() {
        assertThat(dev.loanruntime.serve.ServeOptions.defaults().listener().requestHeadTimeout(), is(Duration.ofSeconds(10)));
    }
}
