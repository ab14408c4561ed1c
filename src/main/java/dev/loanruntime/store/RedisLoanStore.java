package dev.loanruntime.store;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

/**
 * State in Redis, which processes on any number of machines share. The counter is one key changed with
 * {@code INCR} (atomic in the server); a session is a key with a time-to-live ({@code SET ... PX}).
 *
 * <p>With {@code replicas} above 0 a write is acknowledged only after {@code WAIT replicas} says that many replicas
 * hold it: Redis replicates asynchronously, and a master that dies between answering and replicating takes the
 * write with it, while a failover promotes the replica that never saw it. The write and its {@code WAIT} go in one
 * pipeline on one connection, because {@code WAIT} waits for the writes of its own connection. When too few
 * replicas confirm within {@value #WAIT_MS} ms the caller gets {@link StoreUnavailableException} (a 503): the write
 * may survive, so the counter can only exceed what clients saw acknowledged, never fall below it.
 *
 * <p>The calling thread blocks on the socket (a virtual thread parks). Connect and read timeouts are
 * {@value RedisConnections#TIMEOUT_MS} ms; after a connection failure the idle connections are dropped, so that the
 * first requests after the server returns do not meet dead sockets. Commands are never retried: a retried
 * {@code INCR} whose first reply was lost would count twice.
 */
final class RedisLoanStore implements LoanStore {
    /** How long a write waits for its replicas: below the read timeout, so that the reply to WAIT still arrives. */
    static final int WAIT_MS = 300;
    private static final String LOANS = "loan-runtime:loans";
    private static final String SESSION = "loan-runtime:session:";
    private final UnifiedJedis client;
    private final Supplier<Pipeline> pipelines;
    private final Runnable dropIdle;
    private final String description;
    private final int replicas;

    RedisLoanStore(UnifiedJedis client, Supplier<Pipeline> pipelines, Runnable dropIdle, String description,
                   int replicas) {
        this.client = client;
        this.pipelines = pipelines;
        this.dropIdle = dropIdle;
        this.description = description;
        this.replicas = replicas;
    }

    @Override
    public long incrementLoans() {
        return replicated(p -> p.incr(LOANS), () -> client.incr(LOANS));
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
        SetParams expiry = SetParams.setParams().px(ttl.toMillis());
        replicated(p -> p.set(SESSION + key, member, expiry), () -> client.set(SESSION + key, member, expiry));
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
        replicated(p -> p.del(SESSION + key), () -> client.del(SESSION + key));
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

    /**
     * Runs a write; with replicas to wait for, in a pipeline with {@code WAIT}, acknowledged only when they confirm.
     */
    private <T> T replicated(Function<Pipeline, Response<T>> write, Supplier<T> alone) {
        try {
            if (replicas == 0) {
                return alone.get();
            }
            try (Pipeline pipeline = pipelines.get()) {
                Response<T> result = write.apply(pipeline);
                Response<Long> confirmed = pipeline.waitReplicas(replicas, WAIT_MS);
                pipeline.sync();
                T value = result.get();
                if (confirmed.get() < replicas) {
                    throw new StoreUnavailableException(description, confirmed.get() + " of " + replicas
                            + " replicas confirmed the write within " + WAIT_MS + " ms");
                }
                return value;
            }
        } catch (JedisException e) {
            throw unavailable(e);
        }
    }

    private StoreUnavailableException unavailable(JedisException e) {
        if (e instanceof JedisConnectionException) {
            // The other idle connections went to the same dead server: drop them rather than fail on each in turn.
            dropIdle.run();
        }
        return new StoreUnavailableException(description, e);
    }
}
