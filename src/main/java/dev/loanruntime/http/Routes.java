package dev.loanruntime.http;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRules;

/** Routing helpers shared by the services. */
public final class Routes {
    /** For a GET route that a warm-up must not send: it changes state, or costs more than the whole warm-up. */
    public static final Optional<String> NO_WARM_UP = Optional.empty();

    private Routes() {
    }

    /**
     * {@code GET path} answered by {@code handler}; {@code HEAD path} by the same handler, with GET's status and
     * headers and no body; any other method by 405 ({@link #allowOnly}). The HEAD route comes after the GET route,
     * so a GET is matched as before. Listed with {@code description} when the rules are a {@link RouteIndex}, and
     * sent as it is by a warm-up: a GET changes nothing and is cheap unless it says otherwise (the next method).
     */
    public static void get(HttpRules rules, String path, String description, Handler handler) {
        get(rules, path, description, Optional.of(path), handler);
    }

    /**
     * {@link #get(HttpRules, String, String, Handler)}, whose warm-up sends {@code warmUp} ({@link #NO_WARM_UP}: none).
     */
    public static void get(HttpRules rules, String path, String description, Optional<String> warmUp,
                           Handler handler) {
        rules.get(path, handler)
                .head(path, (req, res) -> handler.handle(req, HeadResponse.of(req, res)));
        allowOnly(rules, path, Method.GET, Method.HEAD);
        RouteIndex.add(rules, new RouteIndex.Route(Method.GET.text(), path, description), warmUp);
    }

    /** {@code POST path} answered by {@code handler}, any other method by 405; listed as {@link #get} is. */
    public static void post(HttpRules rules, String path, String description, Handler handler) {
        rules.post(path, handler);
        allowOnly(rules, path, Method.POST);
        RouteIndex.add(rules, new RouteIndex.Route(Method.POST.text(), path, description), NO_WARM_UP);
    }

    /**
     * Answers every other method on {@code path} with 405, an {@code Allow} header and a JSON body (none for HEAD).
     * Register it after the path's real handlers: Helidon tries routes in order.
     */
    public static void allowOnly(HttpRules rules, String path, Method... allowed) {
        String allow = Arrays.stream(allowed).map(Method::text).collect(Collectors.joining(", "));
        rules.any(path, (req, res) -> {
            res.header(HeaderNames.ALLOW, allow);
            Json.send(HeadResponse.of(req, res), Status.METHOD_NOT_ALLOWED_405,
                    new Json.Error("method_not_allowed", req.prologue().method().text()
                            + " is not allowed here; use " + allow));
        });
    }
}
