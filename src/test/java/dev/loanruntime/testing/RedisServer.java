package dev.loanruntime.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.loanruntime.store.StoreUri;

/**
 * A real {@code redis-server} that a test owns: started on a free port outside the range the kernel gives outgoing
 * connections (so that nothing else takes it while the server is down), stopped by PID (SIGKILL, like a crash),
 * started again on the same port. The server that answers is checked to be this one, by its process id. Persistent servers append every write to a file and sync it before answering
 * ({@code appendfsync always}), so a write that was acknowledged survives the kill. Always {@link #close()} it.
 */
public final class RedisServer implements AutoCloseable {
    private final Path binary;
    private final Path dir;
    private final boolean persistent;
    private final int port;
    private Process process;

    private RedisServer(Path binary, Path dir, boolean persistent, int port) {
        this.binary = binary;
        this.dir = dir;
        this.persistent = persistent;
        this.port = port;
    }

    /** The {@code redis-server} on the PATH, if any. */
    public static Optional<Path> binary() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String entry : path.split(File.pathSeparator)) {
            Path candidate = Path.of(entry, "redis-server");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Starts a server with its files in {@code dir}; fails when none is installed or it does not answer. */
    public static RedisServer start(Path dir, boolean persistent) throws IOException {
        Path binary = binary().orElseThrow(() -> new IllegalStateException("redis-server is not on the PATH"));
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            RedisServer server = new RedisServer(binary, dir, persistent, Ports.freeOutsideEphemeralRange());
            try {
                server.startProcess();
                return server;
            } catch (IOException e) {
                // another process may have taken the free port between our probe and redis's bind
                server.close();
                last = e;
            }
        }
        throw last;
    }

    /** Kills the server by PID, as a crash would; its port refuses connections afterwards. */
    public void stop() {
        RedisProcess.killAndWait(process);
        process = null;
    }

    /** Freezes the server (SIGSTOP): connections stay open but nothing answers, like a hung or unreachable host. */
    public void freeze() throws IOException, InterruptedException {
        RedisProcess.signal(pid(), "STOP");
    }

    /** Lets a frozen server run again (SIGCONT). */
    public void thaw() throws IOException, InterruptedException {
        RedisProcess.signal(pid(), "CONT");
    }

    /** Starts the server again on the same port and with the same files. */
    public void restart() throws IOException {
        stop();
        startProcess();
    }

    public StoreUri.Redis uri(int database) {
        return new StoreUri.Redis("127.0.0.1", port, database);
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process == null ? -1 : process.pid();
    }

    @Override
    public void close() {
        stop();
    }

    private void startProcess() throws IOException {
        Files.createDirectories(dir);
        List<String> command = new ArrayList<>(List.of(binary.toString(),
                "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(),
                "--daemonize", "no", "--save", ""));
        command.addAll(persistent
                ? List.of("--appendonly", "yes", "--appendfsync", "always")
                : List.of("--appendonly", "no"));
        Path log = dir.resolve("redis-" + port + ".log");
        process = RedisProcess.startAnswering(command, port, log, () -> {
            try {
                String pid = Resp.answers("127.0.0.1", port)
                        ? Resp.info("127.0.0.1", port, null, "server", "process_id") : null;
                return pid == null ? Optional.empty() : Optional.of(Long.parseLong(pid.trim()));
            } catch (IOException e) {
                return Optional.empty();
            }
        });
    }
}
