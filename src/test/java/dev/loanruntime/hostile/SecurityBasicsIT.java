package dev.loanruntime.hostile;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.loanruntime.protocol.StatusLines;
import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/** Where the server listens, what it warns about, and that passwords and tokens stay out of its output. */
class SecurityBasicsIT {
    @Test
    void withoutHostTheServerListensOnLoopbackOnly() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of())) {
            assertThat(server.output(), server.output().contains("address=http://127.0.0.1:"));
            Optional<InetAddress> external = externalAddress();
            if (external.isPresent()) {
                assertThat("connection refused on " + external.get(), RawHttp.refused(external.get(), server.port()));
            }
            assertThat(server.output(), server.output().contains("warning"), is(false));
        }
    }

    @Test
    void wildcardHostPrintsAWarning() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--host", "0.0.0.0")) {
            await().atMost(Duration.ofSeconds(10)).until(() -> server.output()
                    .contains("warning: --host 0.0.0.0 accepts connections from other machines"));
        }
    }

    @Test
    void passwordsAndTokensNeverReachTheLog() throws Exception {
        String wrongPassword = "wrong-Secret-7f3a9c";
        String token;
        try (ServerProcess server = ServerProcess.serve(List.of(), "--member-cost", "1024,8,1");
                Http http = new Http(server.baseUri())) {
            assertThat(http.post("/member/login", Http.credentials("ada", wrongPassword)).status(), is(401));
            Http.Response login = http.post("/member/login", Http.credentials("ada", "password"));
            assertThat(login.body(), login.status(), is(200));
            token = login.text("token");
            assertThat(http.get("/member/session", "Authorization", "Bearer " + token).text("member"), is("ada"));
            // malformed variants end in error paths, which log when anything does
            http.post("/member/login", "{\"member\":\"ada\",\"password\":\"" + wrongPassword + "\"");
            http.get("/member/session", "Authorization", "Bearer " + token + "x");
            assertThat(http.send("POST", "/member/logout", "Authorization", "Bearer " + token).status(), is(204));
            server.sigterm();
            assertThat(server.awaitExit(Duration.ofSeconds(30)), is(0));
            String output = server.output();
            assertThat(output, output.contains(StatusLines.STOPPED));
            for (String secret : List.of(wrongPassword, "\"password\"", token)) {
                assertThat("the server printed a secret: " + secret + "\n" + output, output.contains(secret), is(false));
            }
        }
    }

    private static Optional<InetAddress> externalAddress() throws IOException {
        return NetworkInterface.networkInterfaces()
                .filter(nic -> {
                    try {
                        return nic.isUp() && !nic.isLoopback();
                    } catch (IOException e) {
                        return false;
                    }
                })
                .flatMap(NetworkInterface::inetAddresses)
                .filter(address -> address instanceof Inet4Address)
                .findFirst();
    }
}
