package dev.loanruntime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * {@code --scrypt} in a real server process: the provider asked for derives, and where Conscrypt's native library
 * cannot load, the server says so in one line and derives with the default, {@code reuse}.
 */
class ScryptProviderIT {
    private static final String WARNING = "loan-runtime: warning: --scrypt conscrypt: Conscrypt's native library "
            + "cannot load on this platform";

    @TempDir
    Path dir;

    @Test
    void conscryptDerivesWhereItsNativeLibraryLoads() throws Exception {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--scrypt", "conscrypt")) {
            assertServes(server, "conscrypt");
            assertThat(server.output(), not(containsString(WARNING)));
        }
    }

    @Test
    void conscryptFallsBackToTheDefaultWithOneLineWhenItsNativeLibraryCannotLoad() throws Exception {
        // Conscrypt extracts its library from the jar into this directory: a plain file cannot hold it, so the load
        // fails as it would on a platform without a bundled library.
        Path notADirectory = Files.writeString(dir.resolve("not-a-directory"), "");
        try (ServerProcess server = ServerProcess.serve(
                List.of("-Dorg.conscrypt.native.workdir=" + notADirectory), "--scrypt", "conscrypt")) {
            assertServes(server, "reuse");
            List<String> warnings = server.output().lines().filter(line -> line.contains("--scrypt")).toList();
            assertThat(server.output(), warnings.size(), is(1));
            assertThat(warnings.getFirst(), containsString(WARNING));
            assertThat(warnings.getFirst(), containsString("using reuse"));
        }
    }

    @Test
    void reuseIsTheDefaultAndHoldsOneWorkspacePerConcurrentDerivation() throws IOException {
        try (ServerProcess server = ServerProcess.serve(List.of())) {
            assertServes(server, "reuse");
            assertThat(server.output(), containsString(" scrypt=reuse (default)"));
            var runtime = new Http(server.baseUri()).get("/runtime").json();
            assertThat(runtime.get("scryptWorkspaces").asInt(), is(1));    // one derivation so far
            assertThat(runtime.get("scryptWorkspaceBytes").asLong(), greaterThanOrEqualTo(64L << 20));
        }
    }

    @Test
    void bouncyCastleStillDerivesWhenAskedFor() throws IOException {
        try (ServerProcess server = ServerProcess.serve(List.of(), "--scrypt", "bouncycastle")) {
            assertServes(server, "bouncycastle");
            assertThat(server.output(), containsString(" scrypt=bouncycastle (default: reuse)"));
            assertThat(new Http(server.baseUri()).get("/runtime").json().get("scryptWorkspaces").asInt(), is(0));
        }
    }

    /** The start-up line and /runtime name the provider that derives, and a derivation succeeds with it. */
    private static void assertServes(ServerProcess server, String provider) throws IOException {
        assertThat(server.output(), containsString(" scrypt=" + provider));
        Http http = new Http(server.baseUri());
        assertThat(http.get("/runtime").json().get("hasher").asText(), is(provider));
        assertThat(http.get("/runtime").json().get("scryptDefault").asText(), is("reuse"));
        assertThat(http.get("/member/verify-pooled").status(), is(200));
    }
}
