/*
 * The ceiling for this stack: a Helidon SE server with nothing but two routes that answer from byte arrays, the
 * same bytes and Content-Type the loan service sends. Run with the JDK's source launcher on the project's class path:
 *   java -cp 'target/loan-runtime.jar:target/libs/*' experiments/peers/BareHelidon.java [PORT]
 * GET /books                  the loan service's /books body
 * GET /catalog/lookup?ms=N    sleeps N ms on the request's virtual thread, then {"waitedMs":N}
 * GET /runtime                {"pid":...}
 * Prints one start-up line, "bare-helidon serving pid=... address=http://127.0.0.1:PORT", like serve does.
 */
import java.nio.charset.StandardCharsets;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerResponse;

public class BareHelidon {
    private static final String JSON = "application/json; charset=utf-8";
    private static final byte[] BOOKS = ("{\"books\":[{\"isbn\":\"978-0262033848\","
            + "\"title\":\"Introduction to Algorithms\",\"shelf\":\"R-12\"}]}").getBytes(StandardCharsets.UTF_8);

    public static void main(String[] args) {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        byte[] runtime = ("{\"pid\":" + ProcessHandle.current().pid() + "}").getBytes(StandardCharsets.UTF_8);
        WebServer server = WebServer.builder()
                .host("127.0.0.1")
                .port(port)
                .backlog(8192) // as the loan service's application.yaml: 10,000 clients connect at once
                // No features found on the class path (observe with health and metrics would be): nothing runs
                // per request but the routing, so the gap to the loan service is everything the service adds.
                .featuresDiscoverServices(false)
                .routing(r -> r
                        .get("/books", (req, res) -> send(res, BOOKS))
                        .get("/runtime", (req, res) -> send(res, runtime))
                        .get("/catalog/lookup", (req, res) -> {
                            int ms = req.query().first("ms").map(Integer::parseInt).orElse(0);
                            Thread.sleep(ms); // a virtual thread per request: parks, frees its carrier
                            send(res, ("{\"waitedMs\":" + ms + "}").getBytes(StandardCharsets.UTF_8));
                        }))
                .build()
                .start();
        System.out.println("bare-helidon serving pid=" + ProcessHandle.current().pid()
                + " address=http://127.0.0.1:" + server.port() + " java=" + Runtime.version());
    }

    private static void send(ServerResponse res, byte[] body) {
        res.status(Status.OK_200);
        res.header(HeaderNames.CONTENT_TYPE, JSON);
        res.send(body);
    }
}
