package dev.loanruntime.client;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * HTTP/2 without TLS (h2c, prior knowledge) frame by frame, for what a client library hides: how late a PING or a
 * stream's first answer comes while the server is busy, and the frames a hostile client sends (rapid resets,
 * CONTINUATION floods, streams past the server's limit). Header blocks are written as HPACK literals without
 * indexing or Huffman coding; of an answer's header block only a {@code :status}
 * from HPACK's static table is read (200, 204, 206, 304, 400, 404, 500), else {@link #UNKNOWN_STATUS}. One thread
 * reads, any thread writes (each frame written whole).
 */
public final class H2Frames implements AutoCloseable {
    /** RFC 9113, section 3.4: the first bytes of every HTTP/2 connection. */
    public static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    public static final int DATA = 0x0;
    public static final int HEADERS = 0x1;
    public static final int RST_STREAM = 0x3;
    public static final int SETTINGS = 0x4;
    public static final int PING = 0x6;
    public static final int GOAWAY = 0x7;
    public static final int WINDOW_UPDATE = 0x8;
    public static final int CONTINUATION = 0x9;
    public static final int END_STREAM = 0x1;
    public static final int ACK = 0x1;
    public static final int END_HEADERS = 0x4;
    /** Error codes (RFC 9113, section 7). */
    public static final int CANCEL = 0x8;
    public static final int ENHANCE_YOUR_CALM = 0xb;
    /** An answer's status that is not one of HPACK's static entries. */
    public static final int UNKNOWN_STATUS = -1;
    /** HPACK's static table, entries 8 to 14 (RFC 7541, appendix A). */
    private static final int[] STATIC_STATUS = {200, 204, 206, 304, 400, 404, 500};

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final String authority;

    private H2Frames(Socket socket, String authority) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
        this.authority = authority;
    }

    /** Connects, sends the preface and an empty SETTINGS frame; answers nothing yet (see {@link #read}). */
    public static H2Frames open(String host, int port, Duration connectTimeout) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), (int) connectTimeout.toMillis());
            H2Frames frames = new H2Frames(socket, host + ":" + port);
            frames.raw(PREFACE);
            frames.frame(SETTINGS, 0, 0, new byte[0]);
            return frames;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** A frame as read: its type, flags, stream and payload. */
    public record Frame(int type, int flags, int stream, byte[] payload) {
        public boolean has(int flag) {
            return (flags & flag) != 0;
        }

        /** The error code of a RST_STREAM or GOAWAY frame. */
        public int errorCode() {
            int at = type == GOAWAY ? 4 : 0;
            return readInt(payload, at);
        }

        /** The :status of a HEADERS frame, when HPACK's static table holds it; else {@link #UNKNOWN_STATUS}. */
        public int status() {
            int at = has(0x8) ? 1 : 0;          // PADDED: a length byte first
            at += has(0x20) ? 5 : 0;            // PRIORITY: stream dependency and weight
            for (; at < payload.length; at++) {
                int b = payload[at] & 0xff;
                if (b >= 0x88 && b <= 0x8e) {   // indexed field 8 to 14
                    return STATIC_STATUS[b - 0x88];
                }
                if ((b & 0xe0) == 0x20) {       // a dynamic table size update may come first
                    continue;
                }
                return UNKNOWN_STATUS;
            }
            return UNKNOWN_STATUS;
        }

        @Override
        public String toString() {
            return "frame type=" + type + " flags=" + flags + " stream=" + stream + " length=" + payload.length;
        }
    }

    /**
     * The next frame, or empty when none arrived within {@code timeout}; a SETTINGS frame from the server is
     * acknowledged before it is returned, and a DATA frame's bytes are given back to the connection's window (each
     * stream's own window of 64 KiB is left as it is). Throws {@link EOFException} when the server closed the
     * connection.
     */
    public Optional<Frame> read(Duration timeout) throws IOException {
        socket.setSoTimeout((int) Math.max(1, timeout.toMillis()));
        int length;
        try {
            length = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
        } catch (SocketTimeoutException e) {
            return Optional.empty();
        }
        socket.setSoTimeout(0);     // the rest of a frame whose first byte came
        int type = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int stream = in.readInt() & 0x7fff_ffff;
        byte[] payload = new byte[length];
        in.readFully(payload);
        Frame frame = new Frame(type, flags, stream, payload);
        if (type == SETTINGS && !frame.has(ACK)) {
            frame(SETTINGS, ACK, 0, new byte[0]);
        } else if (type == DATA && length > 0) {
            // the connection's window back at once: a long run of small answers must not stall at 64 KiB
            byte[] increment = new byte[4];
            writeInt(increment, 0, length);
            frame(WINDOW_UPDATE, 0, 0, increment);
        }
        return Optional.of(frame);
    }

    /** {@code GET path} on stream {@code stream} (odd, rising), its header block in one HEADERS frame. */
    public void get(int stream, String path) throws IOException {
        frame(HEADERS, END_HEADERS | END_STREAM, stream, headerBlock("GET", path, Map.of()));
    }

    /**
     * A request's header block: the pseudo-headers by their names' index in HPACK's static table (Helidon 4.5.0
     * refuses a pseudo-header whose name is a literal, though RFC 7541 allows it), then {@code headers}, as literals.
     */
    public byte[] headerBlock(String method, String path, Map<String, String> headers) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        indexedName(block, 2, method);          // :method
        indexedName(block, 6, "http");          // :scheme
        indexedName(block, 1, authority);       // :authority
        indexedName(block, 4, path);            // :path
        headers.forEach((name, value) -> {
            block.write(0x00);      // literal header field without indexing, new name
            string(block, name);
            string(block, value);
        });
        return block.toByteArray();
    }

    /** A literal header field without indexing whose name is entry {@code index} (< 15) of HPACK's static table. */
    private static void indexedName(ByteArrayOutputStream block, int index, String value) {
        block.write(index);
        string(block, value);
    }

    /** One frame, written whole. */
    public synchronized void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(encode(type, flags, stream, payload));
        out.flush();
    }

    /** A frame's bytes: its 9-byte header (length, type, flags, stream), then {@code payload}. */
    public static byte[] encode(int type, int flags, int stream, byte[] payload) {
        byte[] frame = new byte[9 + payload.length];
        frame[0] = (byte) (payload.length >>> 16);
        frame[1] = (byte) (payload.length >>> 8);
        frame[2] = (byte) payload.length;
        frame[3] = (byte) type;
        frame[4] = (byte) flags;
        writeInt(frame, 5, stream & 0x7fff_ffff);
        System.arraycopy(payload, 0, frame, 9, payload.length);
        return frame;
    }

    /** A PING carrying {@code data}; the server answers with a PING ACK carrying the same. */
    public void ping(long data) throws IOException {
        byte[] payload = new byte[8];
        writeInt(payload, 0, (int) (data >>> 32));
        writeInt(payload, 4, (int) data);
        frame(PING, 0, 0, payload);
    }

    /** The 8 bytes of a PING frame as a number. */
    public static long pingData(Frame frame) {
        return ((long) readInt(frame.payload(), 0) << 32) | (readInt(frame.payload(), 4) & 0xffff_ffffL);
    }

    /** RST_STREAM with {@code code} (e.g. {@link #CANCEL}). */
    public void reset(int stream, int code) throws IOException {
        byte[] payload = new byte[4];
        writeInt(payload, 0, code);
        frame(RST_STREAM, 0, stream, payload);
    }

    /** Bytes as they are, e.g. a preface that is not one. */
    public synchronized void raw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private static void string(ByteArrayOutputStream block, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.ISO_8859_1);
        // a 7-bit prefix integer (RFC 7541, section 5.1), no Huffman coding
        int length = bytes.length;
        if (length < 127) {
            block.write(length);
        } else {
            block.write(127);
            length -= 127;
            while (length >= 128) {
                block.write((length & 0x7f) | 0x80);
                length >>>= 7;
            }
            block.write(length);
        }
        block.writeBytes(bytes);
    }

    private static void writeInt(byte[] to, int at, int value) {
        to[at] = (byte) (value >>> 24);
        to[at + 1] = (byte) (value >>> 16);
        to[at + 2] = (byte) (value >>> 8);
        to[at + 3] = (byte) value;
    }

    private static int readInt(byte[] from, int at) {
        return ((from[at] & 0xff) << 24) | ((from[at + 1] & 0xff) << 16) | ((from[at + 2] & 0xff) << 8)
                | (from[at + 3] & 0xff);
    }
}
