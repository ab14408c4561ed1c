package dev.loanruntime.hostile;

import java.time.Duration;

import io.helidon.config.Config;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http1.Http1Config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        assertEquals(Duration.ofSeconds(30), server.idleConnectionTimeout());
        assertEquals(Duration.ofSeconds(5), server.idleConnectionPeriod());
        assertEquals(16_384, server.maxPayloadSize());
        assertEquals(8_192, server.backlog());
        assertEquals(Duration.ofSeconds(10), server.shutdownGracePeriod());
        Http1Config http1 = Http1Config.create(CONFIG.get("server.protocols.http_1_1"));
        assertEquals(2_048, http1.maxPrologueLength());
        assertEquals(8_192, http1.maxHeadersSize());
    }

    @Test
    void theHeaderDeadlineIsTenSeconds() {
        assertEquals(Duration.ofSeconds(10), CONFIG.get("loan.request-head-timeout").as(Duration.class).get());
    }
}
