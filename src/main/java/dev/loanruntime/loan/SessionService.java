package dev.loanruntime.loan;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import dev.loanruntime.crypto.CryptoPool;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.http.Json;
import dev.loanruntime.http.Routes;
import dev.loanruntime.overload.Admission;
import dev.loanruntime.store.LoanStore;

/**
 * Member sessions: {@code POST /member/login} checks a password and returns a bearer token, {@code GET
 * /member/session} says whose token it is, {@code POST /member/logout} ends it. The session lives in the
 * {@link LoanStore}: with {@code local}, only the process that created it knows it.
 *
 * <p>Handlers block: the password check waits for the crypto pool, the store may do I/O. The store sees only a
 * SHA-256 digest of each token, and neither tokens nor passwords are ever logged.
 */
public final class SessionService implements HttpService {
    private static final long PID = ProcessHandle.current().pid();
    private static final int TOKEN_BYTES = 32;
    private static final String BEARER = "Bearer ";
    private final SecureRandom random = new SecureRandom();
    private final Members members;
    private final LoanStore store;
    private final Duration ttl;
    private final Admission admission;

    /**
     * Seeds the members (see {@link Members#seed}); blocks at start-up when {@code memberCost} is not the lesson's. A
     * login, which derives, asks {@code admission} first.
     */
    public SessionService(CryptoPool pool, ScryptCost memberCost, LoanStore store, Duration ttl, Admission admission) {
        this.members = Members.seed(pool, memberCost);
        this.store = store;
        this.ttl = ttl;
        this.admission = admission;
    }

    @Override
    public void routing(HttpRules rules) {
        Routes.post(rules, "/member/login", "checks a member's password (a JSON body: member, password) and answers "
                + "a bearer token", this::loginHandler);
        Routes.get(rules, "/member/session", "whose session the bearer token is", this::sessionHandler);
        Routes.post(rules, "/member/logout", "ends the bearer token's session", this::logoutHandler);
    }

    private void loginHandler(ServerRequest req, ServerResponse res) {
        // A form or text body is a client mistake worth naming, not "invalid JSON". No Content-Type is accepted.
        var type = req.headers().contentType();
        if (type.isPresent() && !type.get().test(MediaTypes.APPLICATION_JSON)) {
            Json.send(res, Status.UNSUPPORTED_MEDIA_TYPE_415, new Json.Error("unsupported_media_type",
                    "Content-Type must be application/json, was " + type.get().mediaType().text()));
            return;
        }
        Credentials credentials;
        try (InputStream body = req.content().inputStream()) {
            credentials = Credentials.parse(body);
        } catch (Credentials.Invalid e) {
            Json.send(res, e.status(), new Json.Error(e.code(), e.getMessage()));
            return;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        admission.admit();
        if (!members.check(credentials.member(), credentials.password())) {
            // One body for an unknown member and a wrong password: the answer must not tell which.
            unauthorized(res, "invalid_credentials");
            return;
        }
        byte[] bytes = new byte[TOKEN_BYTES];
        random.nextBytes(bytes);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        store.putSession(key(token), credentials.member(), ttl);
        Json.send(res, new Token(token, ttl.toSeconds()));
    }

    private void sessionHandler(ServerRequest req, ServerResponse res) {
        Optional<String> member = bearer(req).flatMap(token -> store.sessionMember(key(token)));
        if (member.isEmpty()) {
            unauthorized(res, "unknown_session");
            return;
        }
        Json.send(res, new Session(member.get(), PID));
    }

    private void logoutHandler(ServerRequest req, ServerResponse res) {
        Optional<String> token = bearer(req);
        if (token.isEmpty()) {
            unauthorized(res, "unknown_session");
            return;
        }
        store.removeSession(key(token.get()));
        res.status(Status.NO_CONTENT_204).send();
    }

    private static Optional<String> bearer(ServerRequest req) {
        return req.headers().first(HeaderNames.AUTHORIZATION)
                .filter(value -> value.regionMatches(true, 0, BEARER, 0, BEARER.length()))
                .map(value -> value.substring(BEARER.length()).trim())
                .filter(token -> !token.isEmpty());
    }

    private static void unauthorized(ServerResponse res, String code) {
        res.header(HeaderNames.WWW_AUTHENTICATE, "Bearer");
        Json.send(res, Status.UNAUTHORIZED_401, Json.Error.of(code));
    }

    /** The store's key for a token: its SHA-256, so that a copy of the store holds no usable token. */
    static String key(String token) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    record Token(String token, long expiresInSeconds) {
    }

    record Session(String member, long pid) {
    }
}
