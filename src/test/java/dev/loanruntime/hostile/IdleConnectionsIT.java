package dev.loanruntime.hostile;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.sun.management.UnixOperatingSystemMXBean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.ServerProcess;

import static dev.loanruntime.hostile.Exchange.assertClean;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;


/**
 * 2,000 kept-alive connections that send nothing more: each holds a socket and a parked virtual thread in the
 * server, and new clients must still be answered at once.
 */
@ExtendWith(HostileTally.class)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class IdleConnectionsIT {
    private static final int WANTED = 2_000;
    /** File descriptors the JVM and the test need besides the sockets. */
    private static final int SPARE_FDS = 500;

    @Test
    void twoThousandIdleKeepAliveConnectionsDoNotStopNewClients() throws Exception {
        int connections = connectionsTheLimitAllows();
        try (ServerProcess server = ServerProcess.serve(List.of("-Xmx512m"));
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            int port = server.port();
            HostileTally.started();     // one case: the idle connections, all held at once
            List<RawHttp.Connection> idle = new ArrayList<>();
            try {
                List<Future<RawHttp.Connection>> opening = new ArrayList<>();
                for (int i = 0; i < connections; i++) {
                    opening.add(clients.submit(() -> openKeptAlive(port)));
                }
                for (Future<RawHttp.Connection> connection : opening) {
                    idle.add(connection.get());
                }
                long slowestMs = 0;
                for (int i = 0; i < 20; i++) {
                    slowestMs = Math.max(slowestMs, Exchange.booksAnswer(port).toMillis());
                }
                assertThat("GET /books took " + slowestMs + " ms beside " + connections
                        + " idle connections", slowestMs < 1_000);
                // and the idle connections are still open and usable
                for (RawHttp.Connection connection : List.of(idle.getFirst(), idle.getLast())) {
                    assertThat(assertClean(request(connection).only()).body(), is(Exchange.BOOKS));
                }
                Exchange.booksStillAnswer(port);
                System.out.println(connections + " idle keep-alive connections; new clients answered, slowest "
                        + slowestMs + " ms");
            } finally {
                for (RawHttp.Connection connection : idle) {
                    connection.close();
                }
            }
        }
    }

    /** 2,000, or fewer when this process's open-file limit (the server's is the same) would not allow them. */
    private static int connectionsTheLimitAllows() {
        long limit = ((UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getMaxFileDescriptorCount();
        int connections = (int) Math.min(WANTED, limit - SPARE_FDS);
        if (connections < WANTED) {
            System.out.println("ulimit -n is " + limit + ": holding " + connections + " connections, not " + WANTED);
        }
        assertThat("ulimit -n " + limit + " is too low for this test", connections >= 500);
        return connections;
    }

    private static RawHttp.Connection openKeptAlive(int port) throws IOException {
        RawHttp.Connection connection = RawHttp.connect(port, Duration.ofSeconds(30));
        assertThat(request(connection).only().status(), is(200));
        return connection;
    }

    private static RawHttp.Responses request(RawHttp.Connection connection) throws IOException {
        connection.send("GET /books HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        return Exchange.read(connection, 1, false);
    }
}
