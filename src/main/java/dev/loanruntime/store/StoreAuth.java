package dev.loanruntime.store;

import java.util.Map;


/**
 * Credentials for a shared store (a Redis server, a PostgreSQL database): an optional user and a password. The
 * password is kept out of every text this project prints: {@link #toString()} redacts it, a store URI prints only
 * the user, and a child process gets it through {@link #PASSWORD_ENV} rather than its command line (which any user
 * of the machine can read in {@code /proc/PID/cmdline}). Immutable, safe from any thread.
 *
 * @param user     the user (Redis: the ACL user), or null for the store's default (Redis' {@code default}; PostgreSQL's
 *                 {@code postgres})
 * @param password the password, or null when the server needs none
 */
public record StoreAuth(String user, String password) {
    /** Where the data nodes' password comes from when the URI holds none. */
    public static final String PASSWORD_ENV = "LOAN_STORE_PASSWORD";
    /** The Sentinels' own password ({@code requirepass} in sentinel.conf); never part of a URI. */
    public static final String SENTINEL_PASSWORD_ENV = "LOAN_SENTINEL_PASSWORD";
    static final StoreAuth NONE = new StoreAuth(null, null);

    /** From a URI's decoded user info (null, {@code USER}, {@code USER:PASSWORD} or {@code :PASSWORD}). */
    static StoreAuth of(String userInfo, Map<String, String> env) {
        String user = null;
        String password = null;
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            user = colon < 0 ? userInfo : userInfo.substring(0, colon);
            password = colon < 0 ? null : userInfo.substring(colon + 1);
        }
        if (password == null || password.isEmpty()) {
            password = blankToNull(env.get(PASSWORD_ENV));
        }
        return new StoreAuth(blankToNull(user), password);
    }

    /** {@code USER@} or nothing: the part of a printed URI that names who logs in, never with what. */
    String shownUser() {
        return user == null ? "" : user + "@";
    }

    /** The variables that give a child process the same password without its command line. */
    Map<String, String> environment() {
        return password == null ? Map.of() : Map.of(PASSWORD_ENV, password);
    }

    static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text;
    }

    @Override
    public String toString() {
        return "StoreAuth[user=" + user + ", password=" + (password == null ? "none" : "(redacted)") + "]";
    }
}
