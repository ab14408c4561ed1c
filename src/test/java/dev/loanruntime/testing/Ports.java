package dev.loanruntime.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for servers that cannot be given port 0. A port that is only probed (bound to 0, read, closed) is free for
 * a moment: until the server binds it, the kernel may hand it to any outgoing connection as its local port, or
 * another process may take it. These ports stay out of that race.
 */
public final class Ports {
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST = 10_000;

    private Ports() {
    }

    /**
     * A port held for processes that bind it with {@code SO_REUSEPORT} (cluster workers): a TCP socket bound to it
     * with that option and never listening. It receives no connection, the workers can join it, and no other socket
     * can bind the port, nor does the kernel give it to an outgoing connection, until {@link Reservation#close()}.
     */
    public static Reservation reserveForReusePort() throws IOException {
        SocketChannel holder = SocketChannel.open();
        try {
            holder.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            holder.bind(new InetSocketAddress("127.0.0.1", 0));
            return new Reservation(holder, ((InetSocketAddress) holder.getLocalAddress()).getPort());
        } catch (IOException | RuntimeException e) {
            holder.close();
            throw e;
        }
    }

    /**
     * A port free now and outside the kernel's range for outgoing connections' local ports, for a server that binds
     * without {@code SO_REUSEPORT} (redis-server): only a process that binds it on purpose can take it before the
     * server does, or while the server is restarted on it.
     */
    public static int freeOutsideEphemeralRange() throws IOException {
        int[] range = ephemeralRange();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = range[0] > LOWEST + 1_000 ? random.nextInt(LOWEST, range[0]) : random.nextInt(range[1] + 1, 65_536);
            if (free(port)) {
                return port;
            }
        }
        throw new IOException("no free port outside the ephemeral range " + range[0] + "-" + range[1]);
    }

    /** The kernel's range of local ports for outgoing connections; Linux's default when it cannot be read. */
    private static int[] ephemeralRange() {
        try {
            String[] bounds = Files.readString(EPHEMERAL_RANGE).trim().split("\\s+");
            return new int[] {Integer.parseInt(bounds[0]), Integer.parseInt(bounds[1])};
        } catch (IOException | RuntimeException e) {
            return new int[] {32_768, 60_999};
        }
    }

    private static boolean free(int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(false);
            probe.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A held port; closing it lets the port go. */
    public record Reservation(SocketChannel holder, int port) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            holder.close();
        }
    }
}
