package dev.loanruntime.monitor;

import java.lang.management.ManagementFactory;
import java.util.Optional;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The JDK's own view of the virtual-thread scheduler, from {@code jdk.management.VirtualThreadSchedulerMXBean} (JDK
 * 24+; read by name, as this code compiles for 21): snapshots, not histories. Any thread; a read takes microseconds.
 */
public final class VirtualThreadScheduler {
    private static final String MXBEAN = "jdk.management:type=VirtualThreadScheduler";
    private static final String[] ATTRIBUTES = {"Parallelism", "PoolSize", "MountedVirtualThreadCount",
            "QueuedVirtualThreadCount"};

    private VirtualThreadScheduler() {
    }

    /**
     * The scheduler now, or empty before JDK 24.
     *
     * @param parallelism its target number of carriers
     * @param poolSize    carriers that exist now (more than parallelism while some compensate for pinned threads)
     * @param mounted     virtual threads mounted on a carrier
     * @param queued      virtual threads ready to run and waiting for a carrier (an estimate, the MXBean says)
     */
    public record Counts(int parallelism, int poolSize, int mounted, long queued) {
    }

    public static Optional<Counts> now() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName(MXBEAN);
            if (!server.isRegistered(name)) {
                return Optional.empty();
            }
            AttributeList values = server.getAttributes(name, ATTRIBUTES);
            if (values.size() != ATTRIBUTES.length) {
                return Optional.empty();
            }
            Number[] n = values.asList().stream().map(Attribute::getValue).toArray(Number[]::new);
            return Optional.of(new Counts(n[0].intValue(), n[1].intValue(), n[2].intValue(), n[3].longValue()));
        } catch (JMException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
