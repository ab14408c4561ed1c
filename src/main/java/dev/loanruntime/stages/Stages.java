package dev.loanruntime.stages;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.helidon.common.socket.SocketOptions;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http1.Http1ConnectionListener;
import io.helidon.webserver.http1.Http1ConnectionSelector;
import io.helidon.webserver.spi.ProtocolConfig;

/**
 * Wires the stage points into a server through Helidon's public hooks only: the listener's connection options
 * ({@code accepted}), the one HTTP/1.1 connection selector ({@code first ran}, {@code closed}), a receive listener
 * ({@code line}, {@code headers}) and the first routing filter (the rest). Used once, on the thread that builds
 * the server; measures the clock first and warns when a stage point would be slow ({@link ClockCheck}).
 */
public final class Stages {
    private Stages() {
    }

    /**
     * Makes {@code http1} the server's only protocol, through a stamping selector, and stamps accepted connections.
     * {@code receiver} is the server's own receive listener: it must not be added to {@code http1} as well, because
     * Helidon 4.5.0 silently drops every receive listener when there are two or more. Add the returned filter first
     * in the routing. A request that takes {@code slowRequests} or longer, from its first point to sent, gets a log
     * line with its stages.
     */
    public static Filter install(WebServerConfig.Builder server, Http1Config.Builder http1,
                                 Http1ConnectionListener receiver, ServerTiming timing,
                                 Optional<Duration> slowRequests) {
        ClockCheck.run();
        Http1Config withHead = http1.addReceiveListener(new HeadStamps(receiver)).build();
        server.connectionOptions(new StampingSocketOptions(
                server.connectionOptions().orElseGet(SocketOptions::create)));
        // Helidon builds a selector for every HTTP/1.1 protocol configuration, and one from the config node
        // server.protocols.http_1_1 unless a configuration of that name is listed. This placeholder claims the
        // name without being an Http1Config, so no selector is built for it: the stamping one is the only one.
        server.protocols(List.of(new Claimed(withHead.name(), withHead.type())))
                .addConnectionSelector(new StampingSelector(
                        Http1ConnectionSelector.builder().config(withHead).build()));
        return new StagesFilter(timing, slowRequests.map(Duration::toNanos).orElse(Long.MAX_VALUE));
    }

    /** A protocol configuration that only claims its type and name. */
    private record Claimed(String name, String type) implements ProtocolConfig {
    }
}
