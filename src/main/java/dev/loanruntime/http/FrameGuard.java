package dev.loanruntime.http;

import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataReader;
import io.helidon.common.buffers.DataWriter;
import io.helidon.common.socket.HelidonSocket;
import io.helidon.common.socket.PeerInfo;
import io.helidon.http.http2.Http2ErrorCode;
import io.helidon.http.http2.Http2Exception;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.ListenerContext;
import io.helidon.webserver.ProxyProtocolData;
import io.helidon.webserver.Router;

/**
 * What Helidon 4.5.0 leaves unbounded on an HTTP/2 connection's way in, checked frame by frame as the bytes arrive,
 * before Helidon parses them: a header block (HEADERS and its CONTINUATION frames) of more than max-header-list-size
 * bytes on the wire (Helidon counts only the CONTINUATION frames, so one HEADERS frame of up to 16 KiB passes), and
 * more than {@value #MAX_CONTINUATIONS} CONTINUATION frames in one block (a zero-length one adds no byte, and Helidon
 * keeps each in a list, so a flood of them grows without end). Either ends the connection with GOAWAY
 * ENHANCE_YOUR_CALM: the exception is thrown where Helidon's connection reads, and its loop writes the GOAWAY.
 * Runs on the connection's thread, the only one that reads it.
 */
final class FrameGuard implements Supplier<byte[]> {
    /** A header block of 8 KiB fits one frame of 16 KiB; a client that splits it needs a few CONTINUATIONs at most. */
    static final int MAX_CONTINUATIONS = 16;
    private static final int PREFACE_LENGTH = 24;
    private static final int FRAME_HEADER_LENGTH = 9;
    private static final int HEADERS = 0x1;
    private static final int CONTINUATION = 0x9;
    private static final int END_HEADERS = 0x4;

    private final DataReader source;
    private final long maxHeaderBlock;
    private long prefaceLeft = PREFACE_LENGTH;
    private final byte[] frameHeader = new byte[FRAME_HEADER_LENGTH];
    private int frameHeaderFilled;
    private long payloadLeft;
    private long headerBlock;
    private int continuations;

    private FrameGuard(DataReader source, long maxHeaderBlock) {
        this.source = source;
        this.maxHeaderBlock = maxHeaderBlock;
    }

    /** {@code ctx}, its bytes read through a guard; everything else as it is. */
    static ConnectionContext guarded(ConnectionContext ctx, long maxHeaderBlock) {
        return new Guarded(ctx, reader(ctx.dataReader(), maxHeaderBlock));
    }

    /** A reader of {@code source}'s bytes through a guard. */
    static DataReader reader(DataReader source, long maxHeaderBlock) {
        return new DataReader(new FrameGuard(source, maxHeaderBlock));
    }

    /** The next bytes the connection sent (blocking for at least one), checked; null at its end. */
    @Override
    public byte[] get() {
        byte[] bytes;
        try {
            BufferData data = source.readBuffer();
            bytes = new byte[data.available()];
            data.read(bytes);
        } catch (DataReader.InsufficientDataAvailableException e) {
            return null;
        }
        inspect(bytes);
        return bytes;
    }

    /** Follows the frames through {@code bytes}: the preface first, then each frame's header and payload. */
    void inspect(byte[] bytes) {
        int at = (int) Math.min(prefaceLeft, bytes.length);
        prefaceLeft -= at;
        while (at < bytes.length) {
            if (payloadLeft > 0) {
                int n = (int) Math.min(payloadLeft, bytes.length - at);
                payloadLeft -= n;
                at += n;
                continue;
            }
            frameHeader[frameHeaderFilled++] = bytes[at++];
            if (frameHeaderFilled == FRAME_HEADER_LENGTH) {
                frameHeaderFilled = 0;
                frame();
            }
        }
    }

    private void frame() {
        int length = ((frameHeader[0] & 0xff) << 16) | ((frameHeader[1] & 0xff) << 8) | (frameHeader[2] & 0xff);
        int type = frameHeader[3] & 0xff;
        payloadLeft = length;
        if (type == HEADERS) {
            headerBlock = length;
            continuations = 0;
        } else if (type == CONTINUATION) {
            headerBlock += length;
            continuations++;
        } else {
            return;
        }
        if (headerBlock > maxHeaderBlock) {
            throw new Http2Exception(Http2ErrorCode.ENHANCE_YOUR_CALM,
                    "a header block of more than " + maxHeaderBlock + " bytes");
        }
        if (continuations > MAX_CONTINUATIONS) {
            throw new Http2Exception(Http2ErrorCode.ENHANCE_YOUR_CALM,
                    "more than " + MAX_CONTINUATIONS + " CONTINUATION frames in one header block");
        }
    }

    /** A connection's context with another reader. */
    private record Guarded(ConnectionContext ctx, DataReader reader) implements ConnectionContext {
        @Override
        public DataReader dataReader() {
            return reader;
        }

        @Override
        public ListenerContext listenerContext() {
            return ctx.listenerContext();
        }

        @Override
        public ExecutorService executor() {
            return ctx.executor();
        }

        @Override
        public DataWriter dataWriter() {
            return ctx.dataWriter();
        }

        @Override
        public Router router() {
            return ctx.router();
        }

        @Override
        public Optional<ProxyProtocolData> proxyProtocolData() {
            return ctx.proxyProtocolData();
        }

        @Override
        public HelidonSocket serverSocket() {
            return ctx.serverSocket();
        }

        @Override
        public PeerInfo remotePeer() {
            return ctx.remotePeer();
        }

        @Override
        public PeerInfo localPeer() {
            return ctx.localPeer();
        }

        @Override
        public boolean isSecure() {
            return ctx.isSecure();
        }

        @Override
        public String socketId() {
            return ctx.socketId();
        }

        @Override
        public String childSocketId() {
            return ctx.childSocketId();
        }
    }
}
