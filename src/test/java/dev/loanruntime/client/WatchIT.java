package dev.loanruntime.client;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpServer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import dev.loanruntime.testing.CliRun;
import dev.loanruntime.testing.ClusterProcess;
import dev.loanruntime.testing.ServerProcess;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;

/** {@code watch} against a server, a cluster, a port nobody listens on, a server that is not a loan-runtime, and a bad URL. */
@ResourceLock(Resources.SYSTEM_OUT)
@ResourceLock(Resources.SYSTEM_ERR)
class WatchIT {
    @Test
    void printsALineASecondWithTheServersPid() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--member-cost", "1024,8,1")) {
            CliRun run = CliRun.of("watch", server.adminUri(), "--count", "2");
            assertThat(run.err(), run.code(), is(0));
            List<String> lines = run.out().strip().lines().toList();
            assertThat(run.out(), lines.size(), is(3));    // the header and two lines
            assertThat(lines.get(2), containsString(Long.toString(server.pid())));
        }
    }

    /** Through a cluster's one port each line names the worker that answered, one of the cluster's. */
    @Test
    void throughAClustersPortEachLineNamesTheWorkerThatAnswered() throws Exception {
        try (ClusterProcess cluster = ClusterProcess.ready(2)) {
            CliRun run = CliRun.of("watch", "http://127.0.0.1:" + cluster.port(), "--count", "3");
            assertThat(run.err(), run.code(), is(0));
            List<String> lines = run.out().strip().lines().toList();
            assertThat(run.out(), lines.size(), is(4));    // the header and three lines
            Matcher worker = Pattern.compile("(\\d+) \\(worker ([12])\\)").matcher(lines.get(3));
            assertThat(lines.get(3), worker.find(), is(true));
            assertThat(lines.get(3), cluster.workerPids(), hasItem(Long.parseLong(worker.group(1))));
        }
    }

    @Test
    void aPortNobodyListensOnIsSaidToBeGone() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        CliRun run = CliRun.of("watch", "http://127.0.0.1:" + closed, "--count", "1");
        assertThat(run.err(), run.code(), is(0));
        assertThat(run.out(), containsString("no answer from http://127.0.0.1:" + closed));
    }

    @Test
    void aServerThatIsNotALoanRuntimeEndsTheWatchWithStatus1() throws IOException {
        HttpServer other = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
        other.createContext("/", exchange -> {
            byte[] body = "{\"hello\": 1}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        other.start();
        try {
            CliRun run = CliRun.of("watch", "http://127.0.0.1:" + other.getAddress().getPort(), "--count", "3");
            assertThat(run.out(), run.code(), is(1));
            assertThat(run.err(), containsString("not as a loan-runtime server does"));
        } finally {
            other.stop(0);
        }
    }

    @Test
    void aBadUrlIsAUsageError() {
        assertThat(CliRun.of("watch", "localhost:8430").usageLine(), containsString("'localhost:8430'"));
    }
}
