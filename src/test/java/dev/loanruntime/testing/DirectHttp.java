package dev.loanruntime.testing;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webclient.http1.Http1ClientRequest;
import io.helidon.webclient.http1.Http1ClientResponse;
import io.helidon.webserver.testing.junit5.DirectClient;

/**
 * {@link Http}'s requests and answers over Helidon's {@link DirectClient}: a routing called in this JVM, with no
 * listener and no socket, so that a route test reads the same whether a server is behind it or not.
 */
public final class DirectHttp {
    private final DirectClient client;

    public DirectHttp(DirectClient client) {
        this.client = client;
    }

    public Http.Response get(String path, String... headers) {
        return send("GET", path, null, headers);
    }

    public Http.Response post(String path, String body, String... headers) {
        return send("POST", path, body, headers);
    }

    public Http.Response send(String method, String path, String... headers) {
        return send(method, path, null, headers);
    }

    private Http.Response send(String method, String target, String body, String... headers) {
        String[] pathAndQuery = target.split("\\?", 2);
        Http1ClientRequest request = client.method(Method.create(method)).path(pathAndQuery[0]);
        if (pathAndQuery.length == 2) {
            for (String pair : pathAndQuery[1].split("&")) {
                String[] nameAndValue = pair.split("=", 2);
                request.queryParam(nameAndValue[0], nameAndValue.length == 2 ? nameAndValue[1] : "");
            }
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.header(HeaderNames.create(headers[i]), headers[i + 1]);
        }
        long start = System.nanoTime();
        try (Http1ClientResponse response = body == null ? request.request()
                : request.header(HeaderNames.CONTENT_TYPE, "application/json").submit(body)) {
            Map<String, List<String>> names = new LinkedHashMap<>();
            for (Header header : response.headers()) {
                names.put(header.name(), header.allValues());
            }
            String text = response.entity().hasEntity() ? response.entity().as(String.class) : "";
            return new Http.Response(response.status().code(), text, HttpHeaders.of(names, (n, v) -> true),
                    Duration.ofNanos(System.nanoTime() - start));
        }
    }
}
