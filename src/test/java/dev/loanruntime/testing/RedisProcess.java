package dev.loanruntime.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * A {@code redis-server} or {@code redis-sentinel} with a password ({@code requirepass}) that a test owns, on
 * 127.0.0.1 and a free port outside the ephemeral range. Killed by PID (SIGKILL, like a crash), frozen and thawed
 * with SIGSTOP/SIGCONT, started again on the same port. The process that answers is checked to be this one.
 * Always {@link #close()} it.
 */
public final class RedisProcess implements AutoCloseable {
    private static final int START_SECONDS = 20;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(START_SECONDS);
    private final List<String> command;
    private final String password;
    private final int port;
    private final Path log;
    private Process process;

    private RedisProcess(List<String> command, String password, int port, Path log) {
        this.command = command;
        this.password = password;
        this.port = port;
        this.log = log;
    }

    /**
     * Skips the calling test (with a message) when {@code binary} is not on the PATH; fails it under
     * {@code CI=true}, where the Redis tests must run.
     */
    public static Path require(String binary) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String entry : path.split(File.pathSeparator)) {
            Path candidate = Path.of(entry, binary);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        String why = binary + " is not on the PATH";
        if ("true".equals(System.getenv("CI"))) {
            throw new IllegalStateException(why + " (CI=true: Redis tests must run)");
        }
        String message = "SKIPPED: " + why + " (install the Debian packages redis-server and redis-sentinel)";
        System.err.println(message);
        Assumptions.abort(message);
        return null;
    }

    /** A data node with {@code requirepass} and {@code masterauth} both {@code password}, without persistence. */
    public static RedisProcess server(Path dir, String password, String... more) throws IOException {
        Path binary = require("redis-server");
        int port = Ports.freeOutsideEphemeralRange();
        List<String> command = new ArrayList<>(List.of(binary.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--dir", dir.toString(), "--daemonize", "no", "--save", "",
                "--appendonly", "no", "--requirepass", password, "--masterauth", password));
        command.addAll(List.of(more));
        return started(command, password, port, dir);
    }

    /**
     * A Sentinel that watches {@code master} on {@code masterPort} (quorum 2, down after 1 s), logs in to the data
     * nodes with {@code dataPassword} and asks its clients and fellow Sentinels for {@code password}.
     */
    public static RedisProcess sentinel(Path dir, String password, String master, int masterPort,
                                        String dataPassword) throws IOException {
        Path binary = require("redis-sentinel");
        int port = Ports.freeOutsideEphemeralRange();
        Path conf = dir.resolve("sentinel-" + port + ".conf");
        Files.writeString(conf, String.join("\n",
                "port " + port,
                "bind 127.0.0.1",
                "daemonize no",
                "dir " + dir,
                "requirepass " + password,
                "sentinel sentinel-pass " + password,
                "sentinel monitor " + master + " 127.0.0.1 " + masterPort + " 2",
                "sentinel auth-pass " + master + " " + dataPassword,
                "sentinel down-after-milliseconds " + master + " 1000",
                "sentinel failover-timeout " + master + " 2000",
                "sentinel parallel-syncs " + master + " 1",
                ""));
        return started(List.of(binary.toString(), conf.toString()), password, port, dir);
    }

    private static RedisProcess started(List<String> command, String password, int port, Path dir) throws IOException {
        RedisProcess redis = new RedisProcess(List.copyOf(command), password, port, dir.resolve("redis-" + port + ".log"));
        try {
            redis.start(redis.command);
            return redis;
        } catch (IOException | RuntimeException e) {
            redis.close();
            throw e;
        }
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process == null ? -1 : process.pid();
    }

    /** Sends one command after logging in; its reply. */
    public Object call(String... command) throws IOException {
        return Resp.one("127.0.0.1", port, password, command);
    }

    /** A field of {@code INFO section}. */
    public String info(String section, String field) throws IOException {
        return Resp.info("127.0.0.1", port, password, section, field);
    }

    /** SIGKILL, as a crash; waits until the process is gone. */
    public void kill() {
        killAndWait(process);
        process = null;
    }

    /** SIGSTOP: the connections stay open, nothing is read or answered. */
    public void freeze() throws IOException, InterruptedException {
        signal(pid(), "STOP");
    }

    /** SIGCONT. */
    public void thaw() throws IOException, InterruptedException {
        signal(pid(), "CONT");
    }

    /** Starts the same command again on the same port, with {@code more} arguments. */
    public void restart(String... more) throws IOException {
        kill();
        List<String> again = new ArrayList<>(command);
        again.addAll(List.of(more));
        start(again);
    }

    @Override
    public void close() {
        kill();
    }

    /** SIGKILL by PID and wait up to 10 s for the end; nothing when {@code process} is null. */
    static void killAndWait(Process process) {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends signal {@code name} ({@code STOP}, {@code CONT}) to {@code pid}. */
    static void signal(long pid, String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + pid + " failed");
        }
    }

    private void start(List<String> cmd) throws IOException {
        process = startAnswering(cmd, port, log, this::answeringPid);
    }

    /** The pid of the Redis answering on a port right now, or empty while none does. */
    interface Answering {
        Optional<Long> pid();
    }

    /**
     * Starts {@code cmd} (its output appended to {@code log}) and waits until it answers on {@code port}; kills it
     * by PID when it does not within {@value #START_SECONDS} s or when another process answers there instead.
     */
    static Process startAnswering(List<String> cmd, int port, Path log, Answering answering) throws IOException {
        Process started = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!started.isAlive()) {
                throw new IOException(cmd.get(0) + " exited with " + started.exitValue() + ":\n" + Files.readString(log));
            }
            Optional<Long> pid = answering.pid();
            if (pid.isPresent()) {
                if (pid.get() != started.pid()) {
                    killAndWait(started);
                    throw new IOException("port " + port + " is another redis process's (pid " + pid.get() + ")");
                }
                return started;
            }
            try {
                started.waitFor(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                killAndWait(started);
                throw new IOException(e);
            }
        }
        killAndWait(started);
        throw new IOException(cmd.get(0) + " did not answer on port " + port + " within " + START_TIMEOUT);
    }

    private Optional<Long> answeringPid() {
        try {
            String pid = info("server", "process_id");
            return pid == null ? Optional.empty() : Optional.of(Long.parseLong(pid.trim()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
