package dev.loanruntime.hostile;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.loanruntime.serve.StatusLines;
import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where the server listens, what it warns about, and that passwords and tokens stay out of its output. */
class SecurityBasicsTest {
    @Test
    void withoutHostTheServerListensOnLoopbackOnly() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of())) {
            assertTrue(server.output().contains("address=http://127.0.0.1:"), server.output());
            Optional<InetAddress> external = externalAddress();
            if (external.isPresent()) {
                try (Socket socket = new Socket()) {
                    assertThrows(ConnectException.class, () ->
                            socket.connect(new InetSocketAddress(external.get(), server.port()), 2_000));
                }
            }
            assertFalse(server.output().contains("warning"), server.output());
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
            assertEquals(401, http.post("/member/login", Http.credentials("ada", wrongPassword)).status());
            Http.Response login = http.post("/member/login", Http.credentials("ada", "password"));
            assertEquals(200, login.status(), login.body());
            token = login.text("token");
            assertEquals("ada", http.get("/member/session", "Authorization", "Bearer " + token).text("member"));
            // malformed variants end in error paths, which log when anything does
            http.post("/member/login", "{\"member\":\"ada\",\"password\":\"" + wrongPassword + "\"");
            http.get("/member/session", "Authorization", "Bearer " + token + "x");
            assertEquals(204, http.send("POST", "/member/logout", "Authorization", "Bearer " + token).status());
            server.sigterm();
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)));
            String output = server.output();
            assertTrue(output.contains(StatusLines.STOPPED), output);
            for (String secret : List.of(wrongPassword, "\"password\"", token)) {
                assertFalse(output.contains(secret), "the server printed a secret: " + secret + "\n" + output);
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
