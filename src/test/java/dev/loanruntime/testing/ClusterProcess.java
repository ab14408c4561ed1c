package dev.loanruntime.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.stream.Collectors;

import dev.loanruntime.protocol.StatusLines;

import static org.awaitility.Awaitility.await;

/**
 * {@code cluster} in a child JVM with the test class path. {@link #close()} kills the primary and every worker it
 * ever named in its output, by PID: after a SIGKILL of the primary its workers are no longer its descendants.
 */
public final class ClusterProcess implements AutoCloseable {
    private final ServerProcess primary;
    /** The port held for a cluster from {@link #ready}, or null. */
    private final Ports.Reservation reserved;

    private ClusterProcess(ServerProcess primary, Ports.Reservation reserved) {
        this.primary = primary;
        this.reserved = reserved;
    }

    /** How long a test waits for a cluster to be ready: a few JVM starts on a loaded 2-core machine. */
    public static final Duration START = Duration.ofSeconds(90);

    /**
     * {@code cluster --workers N --spares 0 --port P <more>}, ready, on a port held for it
     * ({@link Ports#reserveForReusePort()}) until {@link #close()}. Without a spare, the primary's children are its
     * workers, and a dead worker is replaced by a new JVM.
     */
    public static ClusterProcess ready(int workers, String... more) throws IOException {
        Ports.Reservation reserved = Ports.reserveForReusePort();
        List<String> args = new ArrayList<>(List.of("--workers", Integer.toString(workers), "--spares", "0",
                "--port", Integer.toString(reserved.port())));
        args.addAll(List.of(more));
        ClusterProcess cluster;
        try {
            cluster = start(Map.of(), reserved, args);
        } catch (IOException | RuntimeException e) {
            reserved.close();
            throw e;
        }
        try {
            return cluster.awaitReady(START);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Starts {@code cluster <args>} without waiting. */
    public static ClusterProcess start(String... args) throws IOException {
        return start(Map.of(), args);
    }

    /** Starts {@code cluster <args>} with {@code env} added to the primary's environment, without waiting. */
    public static ClusterProcess start(Map<String, String> env, String... args) throws IOException {
        return start(env, null, List.of(args));
    }

    private static ClusterProcess start(Map<String, String> env, Ports.Reservation reserved, List<String> args)
            throws IOException {
        List<String> command = new ArrayList<>(List.of("cluster"));
        command.addAll(args);
        return new ClusterProcess(ServerProcess.start(env, List.of(), "dev.loanruntime.Main", command), reserved);
    }

    /** Waits until the primary prints {@code cluster ready}; fails at once if it exits first. */
    public ClusterProcess awaitReady(Duration timeout) {
        await().atMost(timeout).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (!primary.process().isAlive()) {
                throw new IllegalStateException("primary exited before ready:\n" + output());
            }
            return output().contains(StatusLines.CLUSTER_READY);
        });
        return this;
    }

    public ServerProcess primary() {
        return primary;
    }

    public long pid() {
        return primary.pid();
    }

    /** The port held for a cluster from {@link #ready}. */
    public int port() {
        return reserved.port();
    }

    public String output() {
        return primary.output();
    }

    /** The primary's live child processes: its workers. */
    public Set<Long> workerPids() {
        return primary.process().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }

    /** Every worker and spare pid the primary has announced so far. */
    public List<Long> announcedWorkerPids() {
        List<Long> pids = new ArrayList<>();
        Matcher m = StatusLines.STARTED.matcher(output());
        while (m.find()) {
            pids.add(Long.parseLong(m.group(1)));
        }
        return pids;
    }

    /**
     * Whether {@code pid} still runs. A zombie does not: it has exited and waits for its new parent (init, after its
     * primary died) to collect it, which the JDK's {@link ProcessHandle#isAlive()} does not tell apart.
     */
    public static boolean alive(long pid) {
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException e) {
            return false; // gone between the two looks, or no /proc: isAlive said enough
        }
    }

    @Override
    public void close() {
        List<Optional<ProcessHandle>> workers = announcedWorkerPids().stream().map(ProcessHandle::of).toList();
        primary.close();
        workers.forEach(w -> w.filter(h -> h.info().command().orElse("").endsWith("java"))
                .ifPresent(ProcessHandle::destroyForcibly));
        if (reserved != null) {
            try {
                reserved.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
