package dev.loanruntime.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.awaitility.Awaitility.await;

/**
 * A Redis master, one replica and three Sentinels (quorum 2, down after 1 s), all on 127.0.0.1 with passwords:
 * {@link #DATA_PASSWORD} on the data nodes, {@link #SENTINEL_PASSWORD} on the Sentinels. {@link #start} returns once
 * the replica is in sync and every Sentinel sees the replica and the two other Sentinels, so that a failover can
 * start at once. {@link #close()} kills every process by PID.
 */
public final class SentinelSet implements AutoCloseable {
    public static final String MASTER_NAME = "loans";
    public static final String DATA_PASSWORD = "data-pw-8c1e";
    public static final String SENTINEL_PASSWORD = "sentinel-pw-51d0";
    private static final Duration READY = Duration.ofSeconds(60);
    private final List<RedisProcess> processes = new ArrayList<>();
    private final List<RedisProcess> dataNodes = new ArrayList<>();
    private final List<RedisProcess> sentinels = new ArrayList<>();

    private SentinelSet() {
    }

    public static SentinelSet start(Path dir) throws IOException {
        RedisProcess.require("redis-server");
        RedisProcess.require("redis-sentinel");
        SentinelSet set = new SentinelSet();
        try {
            RedisProcess master = set.add(set.dataNodes, RedisProcess.server(dir, DATA_PASSWORD));
            set.add(set.dataNodes, RedisProcess.server(dir, DATA_PASSWORD,
                    "--replicaof", "127.0.0.1", Integer.toString(master.port())));
            for (int i = 0; i < 3; i++) {
                set.add(set.sentinels, RedisProcess.sentinel(dir, SENTINEL_PASSWORD, MASTER_NAME, master.port(),
                        DATA_PASSWORD));
            }
            await().atMost(READY).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .until(() -> "up".equals(set.dataNodes.get(1).info("replication", "master_link_status"))
                            && set.sentinels.stream().allMatch(SentinelSet::seesEverything));
            return set;
        } catch (IOException | RuntimeException e) {
            set.close();
            throw e;
        }
    }

    /** {@code redis-sentinel://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/loans}. */
    public String storeUri() {
        return "redis-sentinel://" + sentinels.stream().map(s -> "127.0.0.1:" + s.port())
                .collect(Collectors.joining(",")) + "/" + MASTER_NAME;
    }

    /** The data node the Sentinels name as master now (asked of the first Sentinel that answers). */
    public RedisProcess master() throws IOException {
        IOException last = null;
        for (RedisProcess sentinel : sentinels) {
            try {
                Object address = sentinel.call("SENTINEL", "get-master-addr-by-name", MASTER_NAME);
                int port = Integer.parseInt(String.valueOf(((List<?>) address).get(1)));
                return dataNodes.stream().filter(n -> n.port() == port).findFirst().orElseThrow();
            } catch (IOException e) {
                last = e;
            }
        }
        throw last;
    }

    /** The data node that is not {@code node}. */
    public RedisProcess other(RedisProcess node) {
        return dataNodes.get(0) == node ? dataNodes.get(1) : dataNodes.get(0);
    }

    @Override
    public void close() {
        processes.forEach(RedisProcess::close);
    }

    private RedisProcess add(List<RedisProcess> group, RedisProcess process) {
        processes.add(process);
        group.add(process);
        return process;
    }

    /** {@code master0:name=loans,status=ok,address=...,slaves=1,sentinels=3} in INFO sentinel. */
    private static boolean seesEverything(RedisProcess sentinel) {
        try {
            String master = sentinel.info("sentinel", "master0");
            return master != null && master.contains("status=ok") && master.contains("slaves=1")
                    && master.contains("sentinels=3");
        } catch (IOException e) {
            return false;
        }
    }
}
