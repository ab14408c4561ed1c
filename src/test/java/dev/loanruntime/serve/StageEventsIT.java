package dev.loanruntime.serve;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.loanruntime.stages.Stages;
import dev.loanruntime.testing.Jcmd;
import dev.loanruntime.testing.ServerProcess;

import jdk.jfr.consumer.RecordedEvent;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

/**
 * The stages' JFR events: in a user's recording, one per request and one per connection; in the recording every
 * server runs for itself (the pin watch's), none, because writing and parsing one event per request there cost
 * several percent of the cheapest route's throughput. Both recordings are read from a {@code jcmd JFR.dump} of the
 * live server.
 */
@Timeout(120)
class StageEventsIT {
    private static final int REQUESTS = 5;

    @Test
    void aUsersRecordingHasOneEventPerRequestAndOnePerConnection(@TempDir Path dir) throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of("-XX:StartFlightRecording:name=user"),
                "--stages", "on")) {
            booksOnOneConnection(server);
            // the connection's event comes when it closes, after the client has closed it: dump until it is there
            List<RecordedEvent> events = dump(server, dir.resolve("user-0.jfr"), "name=user");
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            for (int i = 1; named(events, Stages.CONNECTION_EVENT).isEmpty() && System.nanoTime() < deadline; i++) {
                Thread.sleep(200);
                events = dump(server, dir.resolve("user-" + i + ".jfr"), "name=user");
            }
            List<RecordedEvent> connections = named(events, Stages.CONNECTION_EVENT);
            assertThat(connections, hasSize(1));
            assertThat(connections.getFirst().getInt("requests"), is(REQUESTS));

            List<RecordedEvent> requests = named(events, Stages.REQUEST_EVENT);
            assertThat(requests, hasSize(REQUESTS));
            assertThat(requests.stream().map(e -> e.getString("path")).toList(), everyItem(is("/books")));
            assertThat(requests.stream().map(e -> e.getInt("status")).toList(), everyItem(is(200)));
            assertThat(requests.stream().filter(e -> e.getBoolean("firstOnConnection")).count(), is(1L));
            for (RecordedEvent request : requests) {
                assertThat(request.toString(), request.getDuration("total").toNanos(), greaterThan(0L));
                assertThat(request.toString(), request.getDuration("handler").toNanos(), greaterThan(0L));
            }
        }
    }

    @Test
    void theServersOwnRecordingHoldsNoStageEvents(@TempDir Path dir) throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--stages", "on")) {
            booksOnOneConnection(server);
            // the pin watch starts its recording in the background: wait until there is one to dump
            List<RecordedEvent> events = null;
            for (int tries = 0; events == null && tries < 50; tries++) {
                events = dumpIfRecording(server, dir.resolve("own-" + tries + ".jfr"));
                if (events == null) {
                    Thread.sleep(200);
                }
            }
            assertThat("the server runs a recording of its own", events == null, is(false));
            assertThat(named(events, Stages.REQUEST_EVENT), empty());
            assertThat(named(events, Stages.CONNECTION_EVENT), empty());
        }
    }

    private static void booksOnOneConnection(ServerProcess server) throws IOException, InterruptedException {
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            for (int i = 0; i < REQUESTS; i++) {
                HttpResponse<String> res = client.send(HttpRequest.newBuilder(URI.create(server.baseUri() + "/books"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(res.statusCode(), is(200));
            }
        }
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }

    private static List<RecordedEvent> dump(ServerProcess server, Path file, String... options) throws Exception {
        List<RecordedEvent> events = dumpIfRecording(server, file, options);
        if (events == null) {
            throw new AssertionError("nothing to dump from " + server.pid());
        }
        return events;
    }

    /** The events of {@code jcmd PID JFR.dump}, or null when the server runs no recording yet. */
    private static List<RecordedEvent> dumpIfRecording(ServerProcess server, Path file, String... options)
            throws Exception {
        return Jcmd.dump(server.pid(), file, options);
    }
}
