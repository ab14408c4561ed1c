/*
 * Light streams beside heavy ones over HTTP/2 (h2c, prior knowledge), frame by frame (dev.loanruntime.client.H2Frames):
 * what one stalled stream does to the others on its connection and on another. Run with the JDK's source launcher on
 * the project's class path:
 *   java -cp 'target/loan-runtime.jar:target/libs/*' experiments/H2Probe.java URL HEAVY_PATH HEAVY_STREAMS PLACE \
 *     SECONDS LIGHT_RATE OUT.json
 * PLACE: same (the heavy streams on the light streams' connection), other (on a second connection) or none.
 * The heavy streams are a closed loop (each sent again when answered) from the start; after one second, GET /books
 * streams go out on the light connection at LIGHT_RATE a second (open loop: each one's latency counts from when it
 * was due) and a PING every 100 ms, for SECONDS. Then it waits up to 30 s for the light answers still owed, and
 * writes OUT.json: the light streams' latency (to their answer's HEADERS frame) and statuses, the PINGs' round
 * trips, the heavy answers, and a GOAWAY if one came. A light stream or PING not answered counts as unanswered.
 */
import java.io.EOFException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.loanruntime.client.H2Frames;

public class H2Probe {
    private static final long WARM_NANOS = Duration.ofSeconds(1).toNanos();
    private static final long PING_EVERY_NANOS = Duration.ofMillis(100).toNanos();

    private final List<Double> lightMs = Collections.synchronizedList(new ArrayList<>());
    private final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    private final List<Double> pingMs = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong pingsSent = new AtomicLong();
    private final AtomicLong heavyAnswered = new AtomicLong();
    private final AtomicInteger goaway = new AtomicInteger(-1);
    private volatile boolean sending = true;

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: H2Probe URL HEAVY_PATH HEAVY_STREAMS same|other|none SECONDS RATE OUT.json");
            System.exit(2);
        }
        new H2Probe().run(URI.create(args[0]), args[1], Integer.parseInt(args[2]), args[3],
                Duration.ofSeconds(Long.parseLong(args[4])), Double.parseDouble(args[5]), Path.of(args[6]));
    }

    /** One connection: its stream ids, and the heavy path it sends again on each heavy answer (null: none). */
    private final class Connection {
        final H2Frames frames;
        final AtomicInteger nextStream = new AtomicInteger(1);
        /** The light streams still unanswered on this connection, by stream id (ids are per connection). */
        final Map<Integer, Long> lightDue = new ConcurrentHashMap<>();
        final String heavy;
        final Thread reader;

        Connection(URI url, String heavy) throws IOException {
            this.frames = H2Frames.open(url.getHost(), url.getPort(), Duration.ofSeconds(5));
            this.heavy = heavy;
            this.reader = Thread.ofPlatform().daemon().start(this::read);
        }

        void send(String path) throws IOException {
            send(path, null);
        }

        /**
         * A stream for {@code path}, its id taken and its HEADERS written under one lock: HTTP/2 wants a connection's
         * new streams in rising order. A light stream's due time is in place before its answer can come.
         */
        synchronized void send(String path, Long due) throws IOException {
            int stream = nextStream.getAndAdd(2);
            if (due != null) {
                lightDue.put(stream, due);
            }
            frames.get(stream, path);
        }

        void read() {
            try {
                while (true) {
                    var frame = frames.read(Duration.ofSeconds(1));
                    if (frame.isEmpty()) {
                        continue;
                    }
                    var f = frame.get();
                    long now = System.nanoTime();
                    switch (f.type()) {
                        case H2Frames.HEADERS -> {
                            Long due = lightDue.remove(f.stream());
                            if (due != null) {
                                lightMs.add((now - due) / 1e6);
                                statuses.computeIfAbsent(f.status(), s -> new AtomicInteger()).incrementAndGet();
                            } else if (heavy != null) {
                                heavyAnswered.incrementAndGet();
                                if (sending) {
                                    send(heavy);
                                }
                            }
                        }
                        case H2Frames.PING -> {
                            if (f.has(H2Frames.ACK)) {
                                pingMs.add((now - H2Frames.pingData(f)) / 1e6);
                            }
                        }
                        case H2Frames.GOAWAY -> goaway.compareAndSet(-1, f.errorCode());
                        default -> {
                        }
                    }
                }
            } catch (EOFException e) {
                // the server closed the connection
            } catch (IOException e) {
                // closed by this program at the end
            }
        }
    }

    private void run(URI url, String heavyPath, int heavyStreams, String place, Duration length, double rate, Path out)
            throws Exception {
        if (!List.of("same", "other", "none").contains(place)) {
            throw new IllegalArgumentException("PLACE is same, other or none, not '" + place + "'");
        }
        Connection light = new Connection(url, place.equals("same") ? heavyPath : null);
        Connection heavy = place.equals("other") ? new Connection(url, heavyPath) : light;
        long start = System.nanoTime();
        if (!place.equals("none")) {
            for (int i = 0; i < heavyStreams; i++) {
                heavy.send(heavyPath);
            }
        }
        long interval = (long) (1e9 / rate);
        long first = start + WARM_NANOS;
        long end = first + length.toNanos();
        long nextPing = first;
        long lightSent = 0;
        for (long due = first; due < end; due += interval) {
            while (nextPing <= due) {
                sleepUntil(nextPing);
                light.frames.ping(System.nanoTime());
                pingsSent.incrementAndGet();
                nextPing += PING_EVERY_NANOS;
            }
            sleepUntil(due);
            light.send("/books", due);
            lightSent++;
        }
        sending = false;
        long owedUntil = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!light.lightDue.isEmpty() && System.nanoTime() < owedUntil && goaway.get() < 0) {
            Thread.sleep(20);
        }
        Thread.sleep(200);      // the last PING answers
        light.frames.close();
        heavy.frames.close();
        Files.writeString(out, json(lightSent, place, heavyPath, heavyStreams));
    }

    private String json(long lightSent, String place, String heavyPath, int heavyStreams) {
        List<Double> light = sorted(lightMs);
        List<Double> ping = sorted(pingMs);
        StringBuilder status = new StringBuilder();
        statuses.forEach((code, count) -> status.append(status.isEmpty() ? "" : ",")
                .append('"').append(code).append("\":").append(count.get()));
        return String.format(Locale.ROOT, "{\"place\":\"%s\",\"heavyPath\":\"%s\",\"heavyStreams\":%d,"
                        + "\"light\":{\"sent\":%d,\"answered\":%d,\"statuses\":{%s},%s},"
                        + "\"ping\":{\"sent\":%d,\"answered\":%d,%s},\"heavyAnswered\":%d,\"goaway\":%s}%n",
                place, heavyPath, heavyStreams, lightSent, light.size(), status, figures(light), pingsSent.get(),
                ping.size(), figures(ping), heavyAnswered.get(), goaway.get() < 0 ? "null" : goaway.get());
    }

    private static List<Double> sorted(List<Double> values) {
        synchronized (values) {
            List<Double> copy = new ArrayList<>(values);
            Collections.sort(copy);
            return copy;
        }
    }

    private static String figures(List<Double> sorted) {
        if (sorted.isEmpty()) {
            return "\"p50Ms\":null,\"p99Ms\":null,\"maxMs\":null";
        }
        return String.format(Locale.ROOT, "\"p50Ms\":%.3f,\"p99Ms\":%.3f,\"maxMs\":%.3f", at(sorted, 0.50),
                at(sorted, 0.99), sorted.getLast());
    }

    /** The nearest-rank percentile. */
    private static double at(List<Double> sorted, double q) {
        return sorted.get(Math.max(0, (int) Math.ceil(q * sorted.size()) - 1));
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            Thread.sleep(Duration.ofNanos(left));
        }
    }
}
