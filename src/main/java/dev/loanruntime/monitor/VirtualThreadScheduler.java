package dev.loanruntime.monitor;

import java.lang.management.ManagementFactory;
import java.lang.management.PlatformManagedObject;
import java.lang.reflect.Method;
import java.util.Optional;

/**
 * The JDK's own view of the virtual-thread scheduler, from {@code jdk.management.VirtualThreadSchedulerMXBean} (JDK
 * 24+; found by name, as this code compiles for 21): snapshots, not histories. Any thread; a read takes microseconds.
 * The bean is asked for alone ({@link ManagementFactory#getPlatformMXBean(Class)}), not through the platform
 * MBeanServer, which creates and registers every platform bean first: several times the cost, and a server's start
 * asks for it ({@code Carriers.verify}).
 */
public final class VirtualThreadScheduler {
    private static final String MXBEAN = "jdk.management.VirtualThreadSchedulerMXBean";
    private static final String[] GETTERS = {"getParallelism", "getPoolSize", "getMountedVirtualThreadCount",
            "getQueuedVirtualThreadCount"};

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

    /** The scheduler now, or empty before JDK 24. */
    public static Optional<Counts> now() {
        Bean bean = Bean.INSTANCE;
        if (bean == null) {
            return Optional.empty();
        }
        try {
            Number[] n = new Number[GETTERS.length];
            for (int i = 0; i < n.length; i++) {
                n[i] = (Number) bean.getters[i].invoke(bean.bean);
            }
            return Optional.of(new Counts(n[0].intValue(), n[1].intValue(), n[2].intValue(), n[3].longValue()));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The bean and its getters, found once, at the first read; {@link #INSTANCE} is null before JDK 24. */
    private record Bean(Object bean, Method[] getters) {
        static final Bean INSTANCE = find();

        @SuppressWarnings("unchecked")
        private static Bean find() {
            try {
                Class<?> type = Class.forName(MXBEAN);
                Object bean = ManagementFactory.getPlatformMXBean((Class<? extends PlatformManagedObject>) type);
                Method[] getters = new Method[GETTERS.length];
                for (int i = 0; i < getters.length; i++) {
                    getters[i] = type.getMethod(GETTERS[i]);
                }
                return bean == null ? null : new Bean(bean, getters);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    }
}
