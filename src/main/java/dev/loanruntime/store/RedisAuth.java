package dev.loanruntime.store;

import java.util.Map;

import redis.clients.jedis.DefaultJedisClientConfig;

/**
 * Credentials for a Redis server: an optional ACL user and a password. The password is kept out of every text this
 * project prints: {@link #toString()} redacts it, a store URI prints only the user, and a child process gets it
 * through {@link #PASSWORD_ENV} rather than its command line (which any user of the machine can read in
 * {@code /proc/PID/cmdline}). Immutable, safe from any thread.
 *
 * @param user     the ACL user, or null for Redis' {@code default} user
 * @param password the password, or null when the server needs none
 */
public record RedisAuth(String user, String password) {
    /** Where the data nodes' password comes from when the URI holds none. */
    public static final String PASSWORD_ENV = "LOAN_STORE_PASSWORD";
    /** The Sentinels' own password ({@code requirepass} in sentinel.conf); never part of a URI. */
    public static final String SENTINEL_PASSWORD_ENV = "LOAN_SENTINEL_PASSWORD";
    static final RedisAuth NONE = new RedisAuth(null, null);

    /** From a URI's decoded user info (null, {@code USER}, {@code USER:PASSWORD} or {@code :PASSWORD}). */
    static RedisAuth of(String userInfo, Map<String, String> env) {
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
        return new RedisAuth(blankToNull(user), password);
    }

    /** {@code USER@} or nothing: the part of a printed URI that names who logs in, never with what. */
    String shownUser() {
        return user == null ? "" : user + "@";
    }

    /** The variables that give a child process the same password without its command line. */
    Map<String, String> environment() {
        return password == null ? Map.of() : Map.of(PASSWORD_ENV, password);
    }

    /** Adds these credentials to a client configuration; without a password the client sends no AUTH. */
    DefaultJedisClientConfig.Builder applyTo(DefaultJedisClientConfig.Builder config) {
        return password == null ? config : config.user(user).password(password);
    }

    static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text;
    }

    @Override
    public String toString() {
        return "RedisAuth[user=" + user + ", password=" + (password == null ? "none" : "(redacted)") + "]";
    }
}
