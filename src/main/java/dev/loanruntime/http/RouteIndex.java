package dev.loanruntime.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRoute;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;

/**
 * The rules of a routing that also list its routes, each with one line that says what it does: the routes added
 * through {@link Routes#get} and {@link Routes#post} list themselves, routes that something else registers (Helidon's
 * own endpoints) are {@link #describe}d where they are added, and {@link #serveAt} answers the list as JSON. It also
 * keeps the requests a warm-up may send ({@link #warmUpTargets}): each GET route's path unless the route says
 * otherwise. Services registered through {@link #register} get the plain rules and are not listed. Built on the
 * thread that builds the routing; the list's answer is serialized once and sent as it is, on any request thread.
 */
public final class RouteIndex implements HttpRules {
    private final HttpRules rules;
    private final List<Route> routes = new ArrayList<>();
    private final List<String> warmUps = new ArrayList<>();
    private volatile byte[] listing;

    /** One route as the list shows it. */
    public record Route(String method, String path, String description) {
    }

    /** What {@code GET /} answers: the service's name and its routes, in the order they were added. */
    record Listing(String service, List<Route> routes) {
    }

    public RouteIndex(HttpRules rules) {
        this.rules = rules;
    }

    /** Lists {@code method path}, which something other than {@link Routes} registers; a GET is warmed up as is. */
    public RouteIndex describe(String method, String path, String description) {
        add(this, new Route(method, path, description), Optional.of(path).filter(p -> "GET".equals(method)));
        return this;
    }

    /** The routes listed so far. */
    public List<Route> routes() {
        return List.copyOf(routes);
    }

    /**
     * The requests (path and query) a warm-up may send, one per route that allows it, in the order the routes were
     * added: each cheap one that changes nothing.
     */
    public List<String> warmUpTargets() {
        return List.copyOf(warmUps);
    }

    /**
     * Adds {@code GET path} (and HEAD), answering {@code {"service": service, "routes": [...]}}: every route listed
     * until now, and this one. Call it after every other route is added.
     */
    public void serveAt(String path, String service) {
        Routes.get(this, path, "this list: the service's name and its routes",
                (req, res) -> Json.sendBytes(res, Status.OK_200, listing));
        listing = Json.bytes(new Listing(service, routes()));
    }

    /** Lists {@code route}, and {@code warmUp} for a warm-up, when {@code rules} list their routes. */
    static void add(HttpRules rules, Route route, Optional<String> warmUp) {
        if (rules instanceof RouteIndex index) {
            index.routes.add(route);
            warmUp.ifPresent(index.warmUps::add);
        }
    }

    @Override
    public HttpRules register(HttpService... services) {
        rules.register(services);
        return this;
    }

    @Override
    public HttpRules register(String pathPattern, HttpService... services) {
        rules.register(pathPattern, services);
        return this;
    }

    @Override
    public HttpRules route(HttpRoute route) {
        rules.route(route);
        return this;
    }
}
