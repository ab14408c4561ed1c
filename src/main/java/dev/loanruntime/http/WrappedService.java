package dev.loanruntime.http;

import java.util.Optional;
import java.util.function.UnaryOperator;

import io.helidon.http.HttpPrologue;
import io.helidon.http.PathMatcher;
import io.helidon.http.PathMatchers;
import io.helidon.http.ServerRequestHeaders;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRoute;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;

/**
 * An {@link HttpService} whose every route's handler is wrapped by {@code wrap} (the in-flight count, the request's
 * stage points): it hands the service rules that wrap each route's handler. Every {@code get}, {@code post}, ... of
 * {@link HttpRules} ends in {@link HttpRules#route}, so wrapping that and {@code register} covers them all. Why not a
 * filter: Helidon runs a filter pass for every request as soon as the routing has one filter, and on one core that
 * pass alone took about 4.5% of {@code /books}' throughput. Built on the thread that builds the routing; the handlers
 * run on the request's thread.
 *
 * <p>Helidon starts and stops a route, and the route its handler; the wrapped route hands those calls to the original
 * route, so a wrapper needs no lifecycle of its own.
 */
public record WrappedService(HttpService service, UnaryOperator<Handler> wrap) implements HttpService {
    /** {@code rules}, wrapping the handler of every route added through them (services registered in them too). */
    public static HttpRules wrapping(HttpRules rules, UnaryOperator<Handler> wrap) {
        return new Rules(rules, wrap);
    }

    @Override
    public void routing(HttpRules rules) {
        service.routing(wrapping(rules, wrap));
    }

    @Override
    public void beforeStart() {
        service.beforeStart();
    }

    @Override
    public void afterStart(WebServer server) {
        service.afterStart(server);
    }

    @Override
    public void afterStop() {
        service.afterStop();
    }

    private record Rules(HttpRules rules, UnaryOperator<Handler> wrap) implements HttpRules {
        @Override
        public HttpRules register(HttpService... services) {
            for (HttpService s : services) {
                rules.register(new WrappedService(s, wrap));
            }
            return this;
        }

        @Override
        public HttpRules register(String pathPattern, HttpService... services) {
            for (HttpService s : services) {
                rules.register(pathPattern, new WrappedService(s, wrap));
            }
            return this;
        }

        /** The route with its handler wrapped; as it was when the wrap leaves the handler alone (the identity). */
        @Override
        public HttpRules route(HttpRoute route) {
            Handler wrapped = wrap.apply(route.handler());
            rules.route(wrapped == route.handler() ? route : new Route(route, wrapped));
            return this;
        }
    }

    /** The route as it was, with the wrapped handler. */
    private record Route(HttpRoute route, Handler handler) implements HttpRoute {
        @Override
        public PathMatchers.MatchResult accepts(HttpPrologue prologue) {
            return route.accepts(prologue);
        }

        @Override
        public PathMatchers.MatchResult accepts(HttpPrologue prologue, ServerRequestHeaders headers) {
            return route.accepts(prologue, headers);
        }

        @Override
        public Optional<PathMatcher> pathMatcher() {
            return route.pathMatcher();
        }

        @Override
        public void beforeStart() {
            route.beforeStart();
        }

        @Override
        public void afterStart(WebServer server) {
            route.afterStart(server);
        }

        @Override
        public void afterStop() {
            route.afterStop();
        }
    }
}
