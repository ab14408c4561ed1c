package dev.loanruntime.stages;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.helidon.common.socket.SocketOptions;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http1.Http1ConnectionListener;
import io.helidon.webserver.spi.ServerConnectionSelector;

/**
 * Wires the stage points into a server through Helidon's public hooks only: the listener's connection options
 * ({@code accepted}), the listener's one connection selector ({@code first ran}, {@code closed}), a receive listener
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
     * Installs what stamps a connection before its protocol runs: the {@code accepted} point in the listener's socket
     * options, and the clock check and JFR event classes, loaded now rather than by the first request, whose virtual
     * thread would be pinned while another one loads them (the class loader's lock). The returned points go around
     * each route's handler or first in the routing's filters (see {@link RequestPoints}). A request that takes
     * {@code slowRequests} or longer, from its first point to sent, gets a log line with its stages.
     */
    public static RequestPoints install(WebServerConfig.Builder server, ServerTiming timing,
                                        Optional<Duration> slowRequests) {
        ClockCheck.run();
        StageEvents.load();
        server.connectionOptions(new StampingSocketOptions(
                server.connectionOptions().orElseGet(SocketOptions::create)));
        return new RequestPoints(timing, slowRequests.map(Duration::toNanos).orElse(Long.MAX_VALUE));
    }

    /**
     * The receive listener that stamps {@code line} and {@code headers}, around {@code receiver}, the server's own:
     * it must not be added to the HTTP/1.1 configuration as well, because Helidon 4.5.0 silently drops every receive
     * listener when there are two or more.
     */
    public static Http1ConnectionListener headStamps(Http1ConnectionListener receiver) {
        return new HeadStamps(receiver);
    }

    /**
     * {@code selector}, stamping {@code first ran} and {@code closed}: it must be the listener's only selector, so
     * that Helidon hands it each connection before reading a byte (see {@link StampingSelector}).
     */
    public static ServerConnectionSelector stamping(ServerConnectionSelector selector) {
        return new StampingSelector(selector);
    }
}
