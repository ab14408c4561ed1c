package dev.loanruntime.store;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Builds the Jedis clients of a {@link RedisLoanStore}: one server ({@link RedisClient}) or the master that
 * Sentinels name ({@link RedisSentinelClient}, which subscribes to the Sentinels' {@code +switch-master} and moves
 * its pool to the new master). Runs on the thread that opens the store and blocks on the network.
 *
 * <p>A server that does not answer at start-up only makes requests fail until it does; a server that refuses the
 * credentials stops the start, with the store's address (never the password) in the message, because no request
 * could ever succeed. Sentinel needs one Sentinel to answer at start-up: without it there is no master to connect to.
 */
final class RedisConnections {
    static final int TIMEOUT_MS = 500;
    private static final int CONNECTIONS = 64;

    private RedisConnections() {
    }

    static RedisLoanStore open(StoreUri.Redis uri, int replicas) {
        RedisClient client = RedisClient.builder()
                .hostAndPort(uri.host(), uri.port())
                .clientConfig(nodeConfig(uri.database(), uri.tls(), uri.auth()))
                .poolConfig(pool())
                .build();
        return checked(new RedisLoanStore(client, client::pipelined, () -> client.getPool().clear(), uri.toString(),
                replicas), uri.auth());
    }

    static RedisLoanStore open(StoreUri.Sentinel uri, int replicas) {
        Set<HostAndPort> sentinels = new LinkedHashSet<>();
        uri.sentinels().forEach(s -> sentinels.add(new HostAndPort(s.host(), s.port())));
        JedisClientConfig sentinelConfig = timeouts(DefaultJedisClientConfig.builder())
                .password(uri.sentinelPassword())
                .build();
        RedisSentinelClient client;
        try {
            client = RedisSentinelClient.builder()
                    .masterName(uri.master())
                    .sentinels(sentinels)
                    .sentinelClientConfig(sentinelConfig)
                    .clientConfig(nodeConfig(uri.database(), false, uri.auth()))
                    .poolConfig(pool())
                    .build();
        } catch (JedisException e) {
            throw new IllegalStateException("store " + uri + ": no Sentinel named the master '" + uri.master()
                    + "': " + e.getMessage() + sentinelHint(sentinels, sentinelConfig));
        }
        Runnable dropIdle = () -> client.getPrimaryNodesConnectionMap().values().forEach(pool -> pool.clear());
        return checked(new RedisLoanStore(client, client::pipelined, dropIdle, uri.toString(), replicas), uri.auth());
    }

    /** Stops the start when the server refuses our credentials; any other failure is left to the requests. */
    private static RedisLoanStore checked(RedisLoanStore store, StoreAuth auth) {
        try {
            store.ping();
        } catch (StoreUnavailableException e) {
            String refusal = refusal(e.getCause());
            if (refusal != null) {
                store.close();
                String hint = auth.password() == null
                        ? " (no password was given: put it in " + StoreAuth.PASSWORD_ENV + ")"
                        : " (check the password in " + StoreAuth.PASSWORD_ENV + " or the URI's USER:PASSWORD)";
                throw new IllegalStateException("store " + store.describe() + " refused to log in: " + refusal + hint);
            }
        }
        return store;
    }

    /** Redis' own words when the failure is an authentication refusal (NOAUTH, WRONGPASS), else null. */
    static String refusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = t.getMessage() == null ? "" : t.getMessage();
            if (t instanceof JedisAccessControlException || message.startsWith("NOAUTH")
                    || message.startsWith("WRONGPASS") || message.contains("invalid password")) {
                return message;
            }
        }
        return null;
    }

    /** Why no Sentinel answered, when one of them refuses the Sentinel password: Jedis reports them all as down. */
    private static String sentinelHint(Set<HostAndPort> sentinels, JedisClientConfig config) {
        for (HostAndPort sentinel : sentinels) {
            try (Jedis jedis = new Jedis(sentinel, config)) {
                jedis.ping();
            } catch (JedisException e) {
                String refusal = refusal(e);
                if (refusal != null) {
                    return " (Sentinel " + sentinel + " refused to log in: " + refusal + "; its password comes from "
                            + StoreAuth.SENTINEL_PASSWORD_ENV + ")";
                }
            }
        }
        return "";
    }

    private static JedisClientConfig nodeConfig(int database, boolean tls, StoreAuth auth) {
        DefaultJedisClientConfig.Builder config = timeouts(DefaultJedisClientConfig.builder())
                .database(database)
                .ssl(tls)
                .clientName("loan-runtime-" + ProcessHandle.current().pid());
        // without a password the client sends no AUTH
        return (auth.password() == null ? config : config.user(auth.user()).password(auth.password())).build();
    }

    private static DefaultJedisClientConfig.Builder timeouts(DefaultJedisClientConfig.Builder config) {
        return config.connectionTimeoutMillis(TIMEOUT_MS).socketTimeoutMillis(TIMEOUT_MS);
    }

    private static ConnectionPoolConfig pool() {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(CONNECTIONS);
        pool.setMaxIdle(CONNECTIONS);
        pool.setMinIdle(0);
        // A request waits at most this long for a free connection, then is refused like any other timeout.
        pool.setMaxWait(Duration.ofMillis(TIMEOUT_MS));
        pool.setBlockWhenExhausted(true);
        return pool;
    }
}
