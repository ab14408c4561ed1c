/*
 * The JVM's own event loop: a Netty 4.2 HTTP server with the loan service's routes and bytes, its handlers run on the
 * event loop that owns the connection, as Node's run on its one loop. Run with the JDK's source launcher:
 *   java -cp 'target/netty-libs/*:target/loan-runtime.jar:target/libs/*' experiments/peers/NettyPeer.java \
 *        [--port P] [--loops N] [--resolution-ms MS]
 * (target/netty-libs comes from experiments/peers/netty/pom.xml; experiments/lib's start_peer netty makes it.)
 * --loops: event loops (default 1, Node's shape; nproc is Netty's usual). The listener and the connections share them.
 * GET /books                  the loan service's /books body
 * GET /member/verify-blocking the loan service's scrypt (its own code, the default provider) on the event loop
 * GET /member/verify-pooled   the same on a bounded pool of nproc platform threads (64 may wait; beyond, 503 busy),
 *                             answered from the pool thread through the connection's loop
 * GET /runtime                pid, loops, transport and carrierDelay in the loan service's shape: a task scheduled on
 *                             each loop every --resolution-ms (10) records how late it ran, from the instant it was
 *                             due, into the loan service's LatencyWindows (the samples a stall swallowed filled in),
 *                             ended each second by a platform thread; lateNowMs: the latest probe's lateness now
 * Prints one start-up line, "netty-peer serving pid=... address=http://127.0.0.1:PORT ...", like serve does.
 */
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;

import dev.loanruntime.crypto.Derivations;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.crypto.ScryptProvider;
import dev.loanruntime.monitor.CarrierDelay;
import dev.loanruntime.monitor.LatencyWindows;
import dev.loanruntime.monitor.WindowClock;

public class NettyPeer {
    private static final String JSON = "application/json; charset=utf-8";
    private static final byte[] BOOKS = ("{\"books\":[{\"isbn\":\"978-0262033848\","
            + "\"title\":\"Introduction to Algorithms\",\"shelf\":\"R-12\"}]}").getBytes(StandardCharsets.UTF_8);
    private static final byte[] PASSWORD = "password".getBytes(StandardCharsets.UTF_8);
    private static final byte[] SALT = "salt".getBytes(StandardCharsets.UTF_8);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final int loops;
    private final long resolution;
    private final String transport;
    private final LatencyWindows delays = new LatencyWindows();
    private final List<Probe> probes = new ArrayList<>();
    private final int cores = java.lang.Runtime.getRuntime().availableProcessors();
    // the loan service's derivations under its memory bound, and a pool like its crypto pool, libuv's counterpart
    private final Derivations derivations = new Derivations(ScryptProvider.DEFAULT.open().hasher(),
            Derivations.defaultMaxRunning(java.lang.Runtime.getRuntime().maxMemory(), ScryptCost.LESSON), 64);
    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(cores, cores, 0, TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(64), Thread.ofPlatform().daemon().name("crypto-", 1).factory());

    private NettyPeer(int loops, long resolutionMs, String transport) {
        this.loops = loops;
        this.resolution = TimeUnit.MILLISECONDS.toNanos(resolutionMs);
        this.transport = transport;
    }

    public static void main(String[] args) throws Exception {
        int port = option(args, "--port", 0);
        int loops = option(args, "--loops", 1);
        int resolutionMs = option(args, "--resolution-ms", 10);
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        NettyPeer peer = new NettyPeer(loops, resolutionMs, epoll ? "epoll" : "nio");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(loops, io);
        for (EventExecutor loop : group) {
            Probe probe = peer.new Probe(loop);
            peer.probes.add(probe);
            probe.arm();
        }
        // the windows end on a platform thread of their own, as the server's do: a held loop cannot end them
        WindowClock clock = new WindowClock(peer.delays::roll);
        Channel server = new ServerBootstrap()
                .group(group)
                .channel(channel)
                .option(ChannelOption.SO_BACKLOG, 8192)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpServerKeepAliveHandler(), peer.new Routes());
                    }
                })
                .bind("127.0.0.1", port).sync().channel();
        int bound = ((java.net.InetSocketAddress) server.localAddress()).getPort();
        System.out.println("netty-peer serving pid=" + ProcessHandle.current().pid() + " address=http://127.0.0.1:"
                + bound + " loops=" + loops + " transport=" + peer.transport + " java=" + java.lang.Runtime.version());
        java.lang.Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            clock.close();
            group.shutdownGracefully();
        }));
        server.closeFuture().sync();
    }

    private static int option(String[] args, String name, int fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return fallback;
    }

    /** How late the latest of the probes is right now, in ms: a loop held now, before any window has it. */
    private double lateNowMs() {
        long now = System.nanoTime();
        long late = 0;
        for (Probe probe : probes) {
            late = Math.max(late, now - probe.due);
        }
        return Math.round(late / 1000.0) / 1000.0;
    }

    /** A task on one event loop that runs every resolution interval and records how late it ran. */
    private final class Probe implements Runnable {
        private final EventExecutor loop;
        private volatile long due;

        Probe(EventExecutor loop) {
            this.loop = loop;
        }

        void arm() {
            due = System.nanoTime() + resolution;
            loop.schedule(this, resolution, TimeUnit.NANOSECONDS);
        }

        @Override
        public void run() {
            delays.recordLateness(System.nanoTime() - due, resolution);
            arm();
        }
    }

    /** The routes, on the connection's event loop. */
    private final class Routes extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof HttpRequest req) {
                    route(ctx, req.uri());
                }
            } finally {
                ReferenceCountUtil.release(msg);    // the request's content, if any, is not read
            }
        }

        private void route(ChannelHandlerContext ctx, String uri) {
            String path = uri.indexOf('?') < 0 ? uri : uri.substring(0, uri.indexOf('?'));
            switch (path) {
                case "/books" -> send(ctx, HttpResponseStatus.OK, BOOKS);
                case "/member/verify-blocking" -> send(ctx, HttpResponseStatus.OK, verified(path));
                case "/member/verify-pooled" -> {
                    try {
                        pool.execute(() -> send(ctx, HttpResponseStatus.OK, verified(path)));
                    } catch (RejectedExecutionException e) {
                        send(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, json(new Error("busy", "the crypto pool is full")));
                    }
                }
                case "/runtime" -> send(ctx, HttpResponseStatus.OK, json(new Runtime(ProcessHandle.current().pid(),
                        "netty", loops, transport, new CarrierDelay.Report(true, "event-loop", resolution / 1e6,
                                lateNowMs(), delays.figures().sinceStart(), delays.figures().last10s(), null))));
                default -> send(ctx, HttpResponseStatus.NOT_FOUND, json(new Error("route_not_found", "no route " + path)));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** Derives on the calling thread: the event loop's for verify-blocking, a pool thread's for verify-pooled. */
    private byte[] verified(String path) {
        byte[] key = derivations.derive(PASSWORD, SALT, ScryptCost.LESSON);
        return json(new Verified(HexFormat.of().formatHex(key).substring(0, 16), path));
    }

    record Verified(String digest, String path) {
    }

    record Error(String error, String message) {
    }

    record Runtime(long pid, String runtime, int loops, String transport, CarrierDelay.Report carrierDelay) {
    }

    private static byte[] json(Object body) {
        try {
            return MAPPER.writeValueAsBytes(body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Any thread: a write from outside the loop is handed to it. */
    private static void send(ChannelHandlerContext ctx, HttpResponseStatus status, byte[] body) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, JSON).setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        ctx.writeAndFlush(res);
    }
}
