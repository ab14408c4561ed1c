package dev.loanruntime.loan;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import dev.loanruntime.crypto.CryptoPool;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.http.Json;
import dev.loanruntime.http.Routes;
import dev.loanruntime.overload.Admission;

/**
 * The heavy requests: the lesson's password check, done inline or on the crypto pool. The computation is the same;
 * only the thread that runs it differs.
 */
public final class MemberService implements HttpService {
    private static final byte[] PASSWORD = "password".getBytes(StandardCharsets.UTF_8);
    private static final byte[] SALT = "salt".getBytes(StandardCharsets.UTF_8);
    private final CryptoPool pool;
    private final Admission admission;

    /** Each heavy request asks {@code admission} before it derives. */
    public MemberService(CryptoPool pool, Admission admission) {
        this.pool = pool;
        this.admission = admission;
    }

    @Override
    public void routing(HttpRules rules) {
        Routes.get(rules, "/member/verify-blocking", "the lesson's scrypt (about a second of CPU) on the request's "
                + "own thread", Routes.NO_WARM_UP, this::verifyBlockingHandler);  // a derivation: too dear to warm
        Routes.get(rules, "/member/verify-pooled", "the same derivation on the crypto pool; the request's thread "
                + "waits without holding a carrier", Routes.NO_WARM_UP, this::verifyPooledHandler);
    }

    /** Derives on the request's own thread: with one carrier, no other virtual thread runs meanwhile. */
    private void verifyBlockingHandler(ServerRequest req, ServerResponse res) {
        admission.admit();
        byte[] key = pool.derivations().derive(PASSWORD, SALT, ScryptCost.LESSON);
        Json.send(res, new Verified(digest(key), req.path().path()));
    }

    /** Hands the derivation to the crypto pool; the request's thread parks until the key is ready. */
    private void verifyPooledHandler(ServerRequest req, ServerResponse res) {
        admission.admit();
        byte[] key = pool.derive(PASSWORD, SALT, ScryptCost.LESSON);
        Json.send(res, new Verified(digest(key), req.path().path()));
    }

    private static String digest(byte[] key) {
        return HexFormat.of().formatHex(key).substring(0, 16);
    }

    record Verified(String digest, String path) {
    }
}
