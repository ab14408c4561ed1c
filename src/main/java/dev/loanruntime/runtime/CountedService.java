package dev.loanruntime.runtime;

import java.util.Optional;

import io.helidon.http.HttpPrologue;
import io.helidon.http.PathMatcher;
import io.helidon.http.PathMatchers;
import io.helidon.http.ServerRequestHeaders;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRoute;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * An {@link HttpService} whose routes count their requests in an {@link InFlight}: it hands the service rules that
 * wrap each route's handler. Every {@code get}, {@code post}, ... of {@link HttpRules} ends in {@link HttpRules#route},
 * so wrapping that and {@code register} covers them all. Built on the thread that builds the routing; the handlers
 * run on the request's thread.
 */
record CountedService(HttpService service, InFlight inFlight) implements HttpService {
    @Override
    public void routing(HttpRules rules) {
        service.routing(new Rules(rules, inFlight));
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

    private record Rules(HttpRules rules, InFlight inFlight) implements HttpRules {
        @Override
        public HttpRules register(HttpService... services) {
            for (HttpService s : services) {
                rules.register(new CountedService(s, inFlight));
            }
            return this;
        }

        @Override
        public HttpRules register(String pathPattern, HttpService... services) {
            for (HttpService s : services) {
                rules.register(pathPattern, new CountedService(s, inFlight));
            }
            return this;
        }

        @Override
        public HttpRules route(HttpRoute route) {
            rules.route(new Route(route, counted(route.handler(), inFlight)));
            return this;
        }
    }

    private static Handler counted(Handler handler, InFlight inFlight) {
        return new Handler() {
            @Override
            public void handle(ServerRequest req, ServerResponse res) throws Exception {
                inFlight.enter();
                try {
                    handler.handle(req, res);
                } finally {
                    inFlight.leave();
                }
            }

            @Override
            public void beforeStart() {
                handler.beforeStart();
            }

            @Override
            public void afterStart(WebServer server) {
                handler.afterStart(server);
            }

            @Override
            public void afterStop() {
                handler.afterStop();
            }
        };
    }

    /** The route as it was, with the counting handler. */
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
