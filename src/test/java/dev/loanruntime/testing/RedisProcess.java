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

import dev.loanruntime.store.StoreUri;

/**
 * A {@code redis-server} or {@code redis-sentinel} that a test owns, on 127.0.0.1 and a free port outside the
 * ephemeral range (so that nothing else takes it while the process is down). Killed by PID (SIGKILL, like a crash),
 * frozen and thawed with SIGSTOP/SIGCONT, started again on the same port. The process that answers is checked to be
 * this one. Always {@link #close()} it.
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
        return require(binary, "", "install the Debian packages redis-server and redis-sentinel");
    }

    /** {@link #require(String)}, the message saying {@code context} before what is missing and {@code remedy} after. */
    static Path require(String binary, String context, String remedy) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String entry : path.split(File.pathSeparator)) {
            Path candidate = Path.of(entry, binary);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        String why = context + binary + " is not on the PATH";
        if ("true".equals(System.getenv("CI"))) {
            throw new IllegalStateException(why + " (CI=true: Redis tests must run)");
        }
        String message = "SKIPPED: " + why + " (" + remedy + ")";
        // Surefire shows a class skipped in its set-up as 0 tests run: say it where the build log shows it.
        System.err.println(message);
        Assumptions.abort(message);
        return null;
    }

    /**
     * A data node without persistence; with {@code requirepass} and {@code masterauth} both {@code password} unless
     * it is null.
     */
    public static RedisProcess server(Path dir, String password, String... more) throws IOException {
        List<String> options = new ArrayList<>(List.of("--appendonly", "no"));
        if (password != null) {
            options.addAll(List.of("--requirepass", password, "--masterauth", password));
        }
        options.addAll(List.of(more));
        return dataNode(dir, password, options);
    }

    /**
     * A data node without a password that appends every write to a file and syncs it before answering
     * ({@code appendfsync always}), so that a write it acknowledged survives a kill and a restart.
     */
    public static RedisProcess persistent(Path dir) throws IOException {
        return dataNode(dir, null, List.of("--appendonly", "yes", "--appendfsync", "always"));
    }

    private static RedisProcess dataNode(Path dir, String password, List<String> options) throws IOException {
        Path binary = require("redis-server");
        return started(dir, password, port -> {
            List<String> command = new ArrayList<>(List.of(binary.toString(), "--port", Integer.toString(port),
                    "--bind", "127.0.0.1", "--dir", dir.toString(), "--daemonize", "no", "--save", ""));
            command.addAll(options);
            return command;
        });
    }

    /**
     * A Sentinel that watches {@code master} on {@code masterPort} (quorum 2, down after 1 s), logs in to the data
     * nodes with {@code dataPassword} and asks its clients and fellow Sentinels for {@code password}.
     */
    public static RedisProcess sentinel(Path dir, String password, String master, int masterPort,
                                        String dataPassword) throws IOException {
        Path binary = require("redis-sentinel");
        return started(dir, password, port -> {
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
            return List.of(binary.toString(), conf.toString());
        });
    }

    /** The command that starts a process on a port. */
    private interface Command {
        List<String> on(int port) throws IOException;
    }

    /** Started on a free port, with two more tries on others when it does not answer. */
    private static RedisProcess started(Path dir, String password, Command command) throws IOException {
        Files.createDirectories(dir);
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = Ports.freeOutsideEphemeralRange();
            RedisProcess redis = new RedisProcess(List.copyOf(command.on(port)), password, port,
                    dir.resolve("redis-" + port + ".log"));
            try {
                redis.start(redis.command);
                return redis;
            } catch (IOException e) {
                // another process may have taken the free port between our probe and redis's bind
                redis.close();
                last = e;
            } catch (RuntimeException e) {
                redis.close();
                throw e;
            }
        }
        throw last;
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process == null ? -1 : process.pid();
    }

    /** The {@code --store} URI of a data node without a password, for {@code database}. */
    public StoreUri.Redis uri(int database) {
        return new StoreUri.Redis("127.0.0.1", port, database);
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
    private static void killAndWait(Process process) {
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
    private static void signal(long pid, String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + pid + " failed");
        }
    }

    /**
     * Starts {@code cmd} (its output appended to the log) and waits until it answers on the port; kills it by PID
     * when it does not within {@value #START_SECONDS} s or when another process answers there instead.
     */
    private void start(List<String> cmd) throws IOException {
        Process started = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!started.isAlive()) {
                throw new IOException(cmd.get(0) + " exited with " + started.exitValue() + ":\n" + Files.readString(log));
            }
            Optional<Long> pid = answeringPid();
            if (pid.isPresent()) {
                if (pid.get() != started.pid()) {
                    killAndWait(started);
                    throw new IOException("port " + port + " is another redis process's (pid " + pid.get() + ")");
                }
                process = started;
                return;
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

    /** The pid of the Redis answering on the port right now, or empty while none does. */
    private Optional<Long> answeringPid() {
        try {
            String pid = info("server", "process_id");
            return pid == null ? Optional.empty() : Optional.of(Long.parseLong(pid.trim()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
