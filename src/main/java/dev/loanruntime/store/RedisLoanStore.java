package dev.loanruntime.store;

import java.time.Duration;
import java.util.Optional;

import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

/**
 * State in a Redis server that processes on any number of machines share. The counter is one key changed with
 * {@code INCR} (atomic in the server); a session is a key with a time-to-live ({@code SET ... PX}).
 *
 * <p>The calling thread blocks on the socket (a virtual thread parks). Connect and read timeouts are
 * {@value #TIMEOUT_MS} ms, so a stopped server is reported within about that; after a connection failure the idle
 * connections are dropped, so that the first requests after the server returns do not meet dead sockets. Commands
 * are never retried: a retried {@code INCR} whose first reply was lost would count twice.
 */
final class RedisLoanStore implements LoanStore {
    static final int TIMEOUT_MS = 500;
    private static final int CONNECTIONS = 64;
    private static final String LOANS = "loan-runtime:loans";
    private static final String SESSION = "loan-runtime:session:";
    private final RedisClient client;
    private final String description;

    private RedisLoanStore(RedisClient client, String description) {
        this.client = client;
        this.description = description;
    }

    /** Configures the client; connects lazily, so a server that is down at start-up only makes requests fail. */
    static RedisLoanStore open(StoreUri.Redis uri) {
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(TIMEOUT_MS)
                .socketTimeoutMillis(TIMEOUT_MS)
                .database(uri.database())
                .clientName("loan-runtime-" + ProcessHandle.current().pid())
                .build();
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(CONNECTIONS);
        pool.setMaxIdle(CONNECTIONS);
        pool.setMinIdle(0);
        // A request waits at most this long for a free connection, then is refused like any other timeout.
        pool.setMaxWait(Duration.ofMillis(TIMEOUT_MS));
        pool.setBlockWhenExhausted(true);
        RedisClient client = RedisClient.builder()
                .hostAndPort(uri.host(), uri.port())
                .clientConfig(config)
                .poolConfig(pool)
                .build();
        return new RedisLoanStore(client, uri.toString());
    }

    @Override
    public long incrementLoans() {
        try {
            return client.incr(LOANS);
        } catch (JedisException e) {
            throw unavailable(e);
        }
    }

    @Override
    public long loans() {
        try {
            String value = client.get(LOANS);
            return value == null ? 0 : Long.parseLong(value);
        } catch (JedisException e) {
            throw unavailable(e);
        }
    }

    @Override
    public void putSession(String key, String member, Duration ttl) {
        try {
            client.set(SESSION + key, member, SetParams.setParams().px(ttl.toMillis()));
        } catch (JedisException e) {
            throw unavailable(e);
        }
    }

    @Override
    public Optional<String> sessionMember(String key) {
        try {
            return Optional.ofNullable(client.get(SESSION + key));
        } catch (JedisException e) {
            throw unavailable(e);
        }
    }

    @Override
    public void removeSession(String key) {
        try {
            client.del(SESSION + key);
        } catch (JedisException e) {
            throw unavailable(e);
        }
    }

    @Override
    public void ping() {
        try {
            client.ping();
        } catch (JedisException e) {
            throw unavailable(e);
        }
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        client.close();
    }

    private StoreUnavailableException unavailable(JedisException e) {
        if (e instanceof JedisConnectionException) {
            // The other idle connections went to the same dead server: drop them rather than fail on each in turn.
            client.getPool().clear();
        }
        return new StoreUnavailableException(description, e);
    }
}
