import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What happens to the connections waiting in the accept queue of a SO_REUSEPORT listener when it closes, as in a
 * worker that stops during a rolling restart. Two listeners share a port; "retiring" never accepts, "staying"
 * answers everything it gets. N clients connect and send a line; the kernel completes every handshake and queues
 * each connection on one of the two. Then "retiring" closes: its queued clients are reset, unless the kernel moves
 * them to "staying" (net.ipv4.tcp_migrate_req=1, Linux 5.14+). Prints one line: queued, reset, answered.
 * Run: java experiments/ReusePortQueue.java [clients]
 */
public class ReusePortQueue {
    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        ServerSocketChannel retiring = listener(0);
        int port = ((InetSocketAddress) retiring.getLocalAddress()).getPort();
        ServerSocketChannel staying = listener(port);
        AtomicInteger answeredByStaying = new AtomicInteger();
        Thread server = Thread.ofPlatform().daemon().start(() -> serve(staying, answeredByStaying));

        List<SocketChannel> sockets = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            SocketChannel socket = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
            socket.write(ByteBuffer.wrap("GET\n".getBytes(StandardCharsets.US_ASCII)));
            sockets.add(socket);
        }
        long deadline = System.nanoTime() + 3_000_000_000L;
        int before = -1;
        while (System.nanoTime() < deadline && before != answeredByStaying.get()) {
            before = answeredByStaying.get();
            Thread.sleep(300); // until the staying listener has served everything the kernel gave it
        }
        int queuedOnRetiring = clients - answeredByStaying.get();
        retiring.close();

        int answered = 0;
        int reset = 0;
        for (SocketChannel socket : sockets) {
            switch (outcome(socket)) {
                case ANSWERED -> answered++;
                case RESET -> reset++;
            }
        }
        String migrate = readSysctl();
        System.out.printf("tcp_migrate_req=%s clients=%d queued-on-closing-listener=%d reset=%d answered=%d%n",
                migrate, clients, queuedOnRetiring, reset, answered);
        staying.close();
        server.join(1000);
    }

    enum Outcome { ANSWERED, RESET }

    private static Outcome outcome(SocketChannel socket) {
        try (socket) {
            socket.socket().setSoTimeout(3000);
            byte[] buffer = new byte[16];
            int n = socket.socket().getInputStream().read(buffer);
            return n > 0 ? Outcome.ANSWERED : Outcome.RESET;
        } catch (IOException e) {
            return Outcome.RESET;
        }
    }

    private static ServerSocketChannel listener(int port) throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open();
        channel.setOption(StandardSocketOptions.SO_REUSEPORT, true);
        channel.bind(new InetSocketAddress("127.0.0.1", port), 4096);
        return channel;
    }

    private static void serve(ServerSocketChannel listener, AtomicInteger answered) {
        while (listener.isOpen()) {
            try (SocketChannel socket = listener.accept()) {
                socket.read(ByteBuffer.allocate(16));
                socket.write(ByteBuffer.wrap("OK\n".getBytes(StandardCharsets.US_ASCII)));
                answered.incrementAndGet();
            } catch (IOException e) {
                return;
            }
        }
    }

    private static String readSysctl() {
        try {
            return Files.readString(Path.of("/proc/sys/net/ipv4/tcp_migrate_req")).trim();
        } catch (IOException e) {
            return "absent";
        }
    }
}
