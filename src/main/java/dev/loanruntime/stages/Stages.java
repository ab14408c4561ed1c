package dev.loanruntime.stages;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.helidon.common.socket.SocketOptions;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http1.Http1ConnectionListener;
import io.helidon.webserver.http1.Http1ConnectionSelector;
import io.helidon.webserver.spi.ProtocolConfig;

/**
 * Wires the stage points into a server through Helidon's public hooks only: the listener's connection options
 * ({@code accepted}), the one HTTP/1.1 connection selector ({@code first ran}, {@code closed}), a receive listener
 * ({@code line}, {@code headers}) and {@link RequestPoints} (the rest). Used once, on the thread that builds
 * the server; measures the clock first and warns when a stage point would be slow ({@link ClockCheck}).
 */
public final class Stages {
    /** The JFR event of one request's stages. */
    public static final String REQUEST_EVENT = "dev.loanruntime.RequestStages";
    /** The JFR event of one connection. */
    public static final String CONNECTION_EVENT = "dev.loanruntime.Connection";

    /** Recordings that want no stage events (the server's own pin watch), by id. */
    private static final Set<Long> LEFT_OUT = ConcurrentHashMap.newKeySet();

    private Stages() {
    }

    /**
     * The recording {@code id} is the server's own and wants no stage events: while no other recording runs, none
     * is made. Call before the recording starts. Without this, the pin watch's recording, which every server runs,
     * would get one event per request, write it to its files and parse it again, on every request.
     */
    public static void leaveOut(long id) {
        LEFT_OUT.add(id);
    }

    static boolean leftOut(long id) {
        return LEFT_OUT.contains(id);
    }

    /**
     * Makes {@code http1} the server's only protocol, through a stamping selector, and stamps accepted connections.
     * {@code receiver} is the server's own receive listener: it must not be added to {@code http1} as well, because
     * Helidon 4.5.0 silently drops every receive listener when there are two or more. The returned points go around
     * each route's handler or first in the routing's filters (see {@link RequestPoints}). A request that takes
     * {@code slowRequests} or longer, from its first point to sent, gets a log line with its stages.
     */
    public static RequestPoints install(WebServerConfig.Builder server, Http1Config.Builder http1,
                                        Http1ConnectionListener receiver, ServerTiming timing,
                                        Optional<Duration> slowRequests) {
        ClockCheck.run();
        // Loaded now rather than by the first request, whose virtual thread would be pinned while another one loads
        // them (the class loader's lock).
        StageEvents.load();
        Http1Config withHead = http1.addReceiveListener(new HeadStamps(receiver)).build();
        server.connectionOptions(new StampingSocketOptions(
                server.connectionOptions().orElseGet(SocketOptions::create)));
        // Helidon builds a selector for every HTTP/1.1 protocol configuration, and one from the config node
        // server.protocols.http_1_1 unless a configuration of that name is listed. This placeholder claims the
        // name without being an Http1Config, so no selector is built for it: the stamping one is the only one.
        server.protocols(List.of(new Claimed(withHead.name(), withHead.type())))
                .addConnectionSelector(new StampingSelector(
                        Http1ConnectionSelector.builder().config(withHead).build()));
        return new RequestPoints(timing, slowRequests.map(Duration::toNanos).orElse(Long.MAX_VALUE));
    }

    /** A protocol configuration that only claims its type and name. */
    private record Claimed(String name, String type) implements ProtocolConfig {
    }
}
