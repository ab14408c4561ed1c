package dev.loanruntime.serve;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import io.helidon.config.Config;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http1.Http1ConnectionListener;
import io.helidon.webserver.http1.Http1ConnectionSelector;
import io.helidon.webserver.http2.Http2Config;
import io.helidon.webserver.spi.ServerConnectionSelector;

import dev.loanruntime.crypto.PasswordHasher;
import dev.loanruntime.http.ClientDisconnects;
import dev.loanruntime.http.ErrorResponses;
import dev.loanruntime.http.Protocols;
import dev.loanruntime.http.RequestHeadDeadline;
import dev.loanruntime.http.RouteIndex;
import dev.loanruntime.runtime.Carriers;
import dev.loanruntime.settings.Switch;
import dev.loanruntime.settings.Threshold;
import dev.loanruntime.stages.RequestPoints;
import dev.loanruntime.stages.Stages;

/**
 * One running loan service: its execution model, its routes and its WebServer. The execution model is decided
 * here and in {@code runtime/}; the routes do not know which thread runs them.
 */
public final class LoanServer implements AutoCloseable {
    /** How long no request must be in flight before the stop goes on: a fresh connection's request arrives sooner. */
    private static final Duration QUIET = Duration.ofMillis(200);
    private final LoanApp app;
    private final RequestHeadDeadline headDeadline;
    private final WebServer server;
    private final RouteIndex routes;
    /** The monitors on platform threads ({@code --admin-port}); null when off or not yet started. */
    private volatile AdminServer admin;

    private LoanServer(ServeOptions options, Config config, Carriers.Observation carriers, PasswordHasher hasher) {
        ClientDisconnects.quiet();
        this.headDeadline = new RequestHeadDeadline(options.listener().requestHeadTimeout());
        try {
            this.app = new LoanApp(options, carriers, hasher);
        } catch (RuntimeException | Error e) {
            headDeadline.close();
            throw e;
        }
        try {
            WebServerConfig.Builder builder = WebServer.builder()
                    .config(config.get("server"))
                    .host(options.listener().host())
                    .port(options.listener().port());
            HttpRouting.Builder routing = HttpRouting.builder();
            this.routes = app.routing(routing, protocols(config, options, builder, headDeadline));
            options.overload().limit().create(Runtime.getRuntime().availableProcessors())
                    .ifPresent(builder::concurrencyLimit);
            if (options.reusePort()) {
                // Cluster workers: every worker binds the same port and the kernel spreads connections among them.
                builder.putListenerSocketOption(StandardSocketOptions.SO_REUSEPORT, true);
            }
            this.server = builder
                    .directHandlers(ErrorResponses.directHandlers(app.monitors().refusedByLimit))
                    .addFeature(app.readiness().feature())
                    .routing(routing)
                    .build();
        } catch (RuntimeException | Error e) {
            try {   // a step that failed ends the start: nothing of it may live on
                close(headDeadline, app);
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * The listener's protocols: HTTP/1.1 from server.protocols.http_1_1 with the header deadline Helidon lacks, and,
     * with {@code --http2 on}, HTTP/2 from server.protocols.http_2, by prior knowledge and by {@code Upgrade: h2c}.
     * One connection selector serves both (see {@link Protocols}). With {@code --stages on}, the stage points around
     * them (returned), else null.
     */
    private static RequestPoints protocols(Config config, ServeOptions options, WebServerConfig.Builder builder,
                                           RequestHeadDeadline headDeadline) {
        ObservationOptions observation = options.observation();
        RequestPoints points = null;
        Http1ConnectionListener receiver = headDeadline;
        if (observation.stages() == Switch.ON) {
            Threshold slow = observation.logSlowRequests();
            points = Stages.install(builder, observation.serverTiming(),
                    slow.on() ? Optional.of(slow.threshold()) : Optional.empty());
            receiver = Stages.headStamps(headDeadline);
        }
        Http1Config http1 = Http1Config.builder()
                .config(config.get("server.protocols.http_1_1"))
                .addReceiveListener(receiver)
                .build();
        var http1Selector = Http1ConnectionSelector.builder().config(http1);
        ServerConnectionSelector selector;
        if (options.listener().http2()) {
            Http2Config http2 = Http2Config.builder().config(config.get("server.protocols.http_2")).build();
            selector = new Protocols(http1Selector.addUpgrader(Protocols.upgrader(http2)).build(), http2);
        } else {
            selector = http1Selector.build();
        }
        Protocols.install(builder, points == null ? selector : Stages.stamping(selector));
        return points;
    }

    /**
     * Starts a server. Call {@link Carriers#configure(int)} first, before any virtual thread exists, when the carrier
     * count must change; this method refuses to start when the JVM runs more carriers than asked for.
     *
     * @throws IllegalStateException when the carrier setting did not take effect, or the server cannot listen
     */
    public static LoanServer start(ServeOptions options, Config config) {
        var scrypt = options.crypto().scrypt().open();
        scrypt.fallback().ifPresent(why -> System.getLogger(LoanServer.class.getName())
                .log(System.Logger.Level.WARNING, why));
        return start(options, config, scrypt.hasher());
    }

    /** Starts a server whose derivations use {@code hasher}. */
    static LoanServer start(ServeOptions options, Config config, PasswordHasher hasher) {
        Carriers.Observation carriers = Carriers.verify(options.execution().carriers());
        LoanServer loanServer = new LoanServer(options, config, carriers, hasher);
        // Helidon returns instead of throwing, after logging why with a stack trace, which StartFailure keeps for
        // this one line instead.
        Optional<String> failure = StartFailure.during(loanServer.server::start);
        StartTimeline.mark("listening");
        if (!loanServer.server.isRunning()) {
            loanServer.close();
            ListenerOptions listener = options.listener();
            throw new IllegalStateException("cannot listen on " + listener.host() + ":" + listener.port() + failure
                    .map(why -> ": " + why).orElse(" (the port is taken, or the address is not this machine's)"));
        }
        loanServer.app.listening();
        OptionalInt adminPort = options.listener().adminPort();
        if (adminPort.isPresent()) {
            // a fixed admin port in a cluster: worker N takes PORT + N - 1, so that the workers do not collide
            int port = adminPort.getAsInt() > 0 && options.workerId() > 0
                    ? adminPort.getAsInt() + options.workerId() - 1 : adminPort.getAsInt();
            try {
                loanServer.admin = AdminServer.start(options.listener().host(), port, loanServer.app,
                        loanServer.port());
            } catch (IOException | RuntimeException e) {
                loanServer.close();
                throw new IllegalStateException("cannot listen on " + options.listener().host() + ":" + port
                        + " for --admin-port: " + e.getMessage(), e);
            }
        }
        return loanServer;
    }

    public int port() {
        return server.port();
    }

    /** The port of the monitors on platform threads; empty with {@code --admin-port off}. */
    public OptionalInt adminPort() {
        AdminServer running = admin;
        return running == null ? OptionalInt.empty() : OptionalInt.of(running.port());
    }

    public RuntimeService.Report report() {
        return app.report();
    }

    /** The routes {@code GET /} lists, in its order. */
    public List<RouteIndex.Route> routes() {
        return routes.routes();
    }

    /** The requests a warm-up may send: one per route that is cheap and changes nothing. */
    List<String> warmUpTargets() {
        return routes.warmUpTargets();
    }

    /**
     * From now on the readiness check {@code drain} is DOWN, so {@code /observe/health/ready} and
     * {@code /observe/health/check/drain} answer 503, while the server goes on accepting and serving: a load
     * balancer's health check takes it out before {@link #close()} closes its listener. Any thread; returns at once.
     */
    void drain() {
        app.readiness().drain();
        app.monitors().inFlight.closeConnections();
    }

    /**
     * Stops accepting, answers every request already accepted (each with {@code Connection: close}), then stops
     * Helidon, whose grace period ends what is left, and frees the rest. See {@link AcceptStop} for why Helidon's
     * stop alone would reset connections it had accepted.
     */
    @Override
    public void close() {
        AcceptStop stop = new AcceptStop(server);
        app.monitors().inFlight.closeConnections();
        String cannot = stop.stopAccepting();
        if (cannot != null) {
            System.getLogger(LoanServer.class.getName()).log(System.Logger.Level.WARNING, cannot);
        } else {
            try {
                // a connection accepted just before the socket closed sends its request within moments
                // at most Helidon's grace period (server.shutdown-grace-period), which it then applies itself
                app.monitors().inFlight.awaitQuiet(QUIET, server.prototype().shutdownGracePeriod());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        stop.stop();
        AdminServer running = admin;
        if (running != null) {
            running.close();    // after the service's port: the monitors see the stop through
        }
        close(headDeadline, app);
    }

    /** Closes both, the second whatever the first throws. */
    private static void close(RequestHeadDeadline headDeadline, LoanApp app) {
        try {
            headDeadline.close();
        } finally {
            app.close();
        }
    }
}
