package dev.loanruntime.store;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import io.helidon.config.Config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.serve.LoanServer;
import dev.loanruntime.serve.ServeOptions;
import dev.loanruntime.testing.Http;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.both;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

/** A server on an SQLite file: what reaches the file, and what a client gets while the file cannot be written. */
@Timeout(60)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class SqliteServerIT {
    @TempDir
    Path dir;

    private LoanServer start(Path db) {
        return LoanServer.start(ServeOptions.parse("--port", "0", "--crypto-threads", "1", "--crypto-queue", "4",
                "--max-derivations", "1", "--store", "sqlite:" + db, "--member-cost", "1024,8,1",
                "--session-ttl", "300"), Config.create());
    }

    @Test
    void theFileHoldsOnlyTheTokensSha256() throws Exception {
        Path db = dir.resolve("loans.db");
        String token;
        try (LoanServer server = start(db); Http http = new Http("http://127.0.0.1:" + server.port())) {
            Http.Response login = http.post("/member/login", Http.credentials("ada", "password"));
            assertThat(login.body(), login.status(), is(200));
            token = login.text("token");
        }
        List<String> rows = new ArrayList<>();
        try (Connection file = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement statement = file.createStatement();
                ResultSet sessions = statement.executeQuery("SELECT session_key, member FROM sessions")) {
            while (sessions.next()) {
                rows.add(sessions.getString(1) + " " + sessions.getString(2));
            }
        }
        String sha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(token.getBytes(StandardCharsets.US_ASCII)));
        assertThat(rows, is(List.of(sha256 + " ada")));
        // nowhere in the database's files, WAL included: not as text, not in any other column
        try (var files = Files.list(dir)) {
            for (Path file : files.toList()) {
                String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                assertThat(file + " holds the token", bytes.contains(token), is(false));
            }
        }
    }

    /**
     * Another process holds SQLite's write lock for longer than the busy timeout (2 s): the loan counter cannot be
     * written, so {@code /loan} answers 503 with {@code Retry-After} once the timeout has passed, the routes that do
     * not write keep working, and the next {@code /loan} after the lock is gone succeeds.
     */
    @Test
    void aWriteLockHeldElsewhereMakesLoansUnavailableUntilItIsGone() throws Exception {
        Path db = dir.resolve("loans.db");
        try (LoanServer server = start(db); Http http = new Http("http://127.0.0.1:" + server.port())) {
            assertThat(http.get("/loan").number("loanCounter"), is(1L));
            try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + db);
                    Statement statement = other.createStatement()) {
                statement.execute("BEGIN IMMEDIATE");     // the write lock, as another process's long write
                Http.Response loan = http.get("/loan");
                assertThat(loan.body(), loan.status(), is(503));
                assertThat(loan.text("error"), is("store_unavailable"));
                assertThat(loan.header("retry-after"), is("1"));
                assertThat(loan.took(), both(greaterThanOrEqualTo(SqliteLoanStore.BUSY_TIMEOUT))
                        .and(lessThan(SqliteLoanStore.BUSY_TIMEOUT.plusSeconds(3))));
                assertThat(http.get("/status").number("loanCounter"), is(1L));   // WAL: readers do not wait
                assertThat(http.get("/books").status(), is(200));
                statement.execute("ROLLBACK");
            }
            Http.Response after = http.get("/loan");
            assertThat(after.body(), after.status(), is(200));
            assertThat(after.number("loanCounter"), is(2L));
        }
    }
}
