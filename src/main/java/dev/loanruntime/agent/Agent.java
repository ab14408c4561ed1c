package dev.loanruntime.agent;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.lang.management.ManagementFactory;
import java.util.OptionalInt;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import dev.loanruntime.monitor.CarrierDelay;

/**
 * loan-runtime's monitors in any JVM 21+, as a Java agent: the carrier delay (a virtual-thread probe, and a
 * platform-thread one for the OS's share), with {@code pins=on} the pinned virtual threads (JFR's
 * {@code jdk.VirtualThreadPinned}) and, on JDK 24+, the scheduler's counts, reported as JFR events
 * ({@code dev.loanruntime.CarrierDelay}, one a second per probe), as MXBeans
 * ({@code dev.loanruntime:type=CarrierDelay,thread=virtual|platform}) and, with {@code port=N}, as Prometheus text at
 * {@code http://127.0.0.1:N/metrics}, served by platform threads so that it answers while every carrier is held.
 * <pre>
 *   java -javaagent:target/loan-runtime-agent.jar=port=9464[,host=H][,resolution=10ms][,log-over=200ms][,pins=on] \
 *        -jar app.jar
 *   loan-runtime attach PID port=9464       (into a JVM that runs already)
 * </pre>
 * It touches nothing of the application: no class is transformed, its own copy of HdrHistogram is relocated, and all
 * its threads are daemons. Once per JVM: a second start says where the first one serves. At start-up (premain) a bad
 * option or a port in use costs the application nothing but a line on stderr; attached (agentmain), the error goes
 * back to {@code attach}, which prints it.
 */
public final class Agent {
    private static final String PREFIX = "loan-runtime agent: ";
    private static Probes probes;
    private static MetricsServer metrics;

    private Agent() {
    }

    /** {@code -javaagent:loan-runtime-agent.jar=OPTIONS}: before the application's main. */
    public static void premain(String options, Instrumentation instrumentation) {
        try {
            start(options);
        } catch (IOException | RuntimeException e) {
            System.err.println(PREFIX + "not started: " + e.getMessage());
        }
    }

    /** {@code loan-runtime attach PID OPTIONS}: into a running JVM; a failure goes back to the attacher. */
    public static void agentmain(String options, Instrumentation instrumentation) throws IOException {
        start(options);
    }

    private static synchronized void start(String given) throws IOException {
        if (probes != null) {
            System.err.println(PREFIX + "already running" + (metrics == null ? "" : ", /metrics on port "
                    + metrics.port()) + "; options '" + (given == null ? "" : given) + "' not applied");
            return;
        }
        AgentOptions options = AgentOptions.parse(given);
        Probes started = new Probes(options);
        MetricsServer server = null;
        OptionalInt port = options.port();
        if (port.isPresent()) {
            try {
                server = MetricsServer.start(options.host(), port.getAsInt(), () -> PrometheusText.of(started));
            } catch (IOException | RuntimeException e) {
                started.close();
                throw new IOException("cannot listen on " + options.host() + ":" + port.getAsInt() + ": "
                        + e.getMessage(), e);
            }
        }
        register(started.virtual);
        register(started.platform);
        probes = started;
        metrics = server;
        System.err.println(PREFIX + "carrier delay every " + options.resolution().toMillis() + " ms on a virtual and "
                + "a platform thread" + (server == null ? "" : ", http://" + options.host() + ":" + server.port()
                + "/metrics") + (options.logOver().on() ? ", a line for a delay of "
                + options.logOver().threshold().toMillis() + " ms or more" : ""));
    }

    /** The probe's MXBean; one already registered (the application is loan-runtime itself) is left as it is. */
    private static void register(CarrierDelay probe) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("dev.loanruntime:type=CarrierDelay,thread=" + probe.threadKind());
            if (!server.isRegistered(name)) {
                server.registerMBean(new StandardMBean(new CarrierDelayBean(probe), CarrierDelayMXBean.class, true),
                        name);
            }
        } catch (JMException e) {
            System.err.println(PREFIX + "no MXBean for the " + probe.threadKind() + " probe: " + e.getMessage());
        }
    }
}
