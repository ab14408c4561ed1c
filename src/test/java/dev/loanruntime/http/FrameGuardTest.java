package dev.loanruntime.http;

import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.Deque;

import io.helidon.common.buffers.DataReader;
import io.helidon.http.http2.Http2ErrorCode;
import io.helidon.http.http2.Http2Exception;
import org.junit.jupiter.api.Test;

import dev.loanruntime.client.H2Frames;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The guard follows frames through the bytes however they are cut into reads, and passes every byte on unchanged:
 * the whole connection is given to it one byte a read, and in one read.
 */
class FrameGuardTest {
    private static final int LIMIT = 8192;

    @Test
    void framesWithinTheLimitsPassUnchanged() {
        byte[] connection = connection(frame(H2Frames.HEADERS, 0, new byte[4000]),
                frame(H2Frames.CONTINUATION, 0, new byte[4000]),
                frame(H2Frames.CONTINUATION, H2Frames.END_HEADERS, new byte[100]),
                // a DATA frame larger than the header limit is no header block
                frame(H2Frames.DATA, 0, new byte[16_000]),
                frame(H2Frames.HEADERS, H2Frames.END_HEADERS, new byte[8000]));
        for (int chunk : new int[] {1, 7, connection.length}) {
            assertThat("read " + chunk + " bytes at a time", readAll(connection, chunk), is(connection));
        }
    }

    @Test
    void aHeaderBlockOverTheLimitIsRefusedWhereverTheReadsAreCut() {
        byte[] connection = connection(frame(H2Frames.HEADERS, 0, new byte[5000]),
                frame(H2Frames.CONTINUATION, H2Frames.END_HEADERS, new byte[3500]));
        for (int chunk : new int[] {1, 9, 4096, connection.length}) {
            Http2Exception e = assertThrows(Http2Exception.class, () -> readAll(connection, chunk));
            assertThat(e.code(), is(Http2ErrorCode.ENHANCE_YOUR_CALM));
            assertThat(e.getMessage(), containsString("header block"));
        }
        byte[] single = connection(frame(H2Frames.HEADERS, H2Frames.END_HEADERS, new byte[LIMIT + 1]));
        assertThrows(Http2Exception.class, () -> readAll(single, 1000));
    }

    @Test
    void emptyContinuationFramesPastTheirCountAreRefused() {
        byte[][] frames = new byte[FrameGuard.MAX_CONTINUATIONS + 2][];
        frames[0] = frame(H2Frames.HEADERS, 0, new byte[10]);
        for (int i = 1; i < frames.length; i++) {
            frames[i] = frame(H2Frames.CONTINUATION, 0, new byte[0]);
        }
        Http2Exception e = assertThrows(Http2Exception.class, () -> readAll(connection(frames), 3));
        assertThat(e.getMessage(), containsString("CONTINUATION"));
        // as many as allowed, then the block ends: the next block counts from zero
        byte[][] allowed = new byte[2 * (FrameGuard.MAX_CONTINUATIONS + 1)][];
        for (int block = 0; block < 2; block++) {
            int at = block * (FrameGuard.MAX_CONTINUATIONS + 1);
            allowed[at] = frame(H2Frames.HEADERS, 0, new byte[10]);
            for (int i = 1; i <= FrameGuard.MAX_CONTINUATIONS; i++) {
                allowed[at + i] = frame(H2Frames.CONTINUATION,
                        i == FrameGuard.MAX_CONTINUATIONS ? H2Frames.END_HEADERS : 0, new byte[0]);
            }
        }
        byte[] fine = connection(allowed);
        assertThat(readAll(fine, 5), is(fine));
    }

    /** Every byte of {@code connection} through a guard, {@code chunk} bytes a read. */
    private static byte[] readAll(byte[] connection, int chunk) {
        Deque<byte[]> reads = new ArrayDeque<>();
        for (int at = 0; at < connection.length; at += chunk) {
            byte[] read = new byte[Math.min(chunk, connection.length - at)];
            System.arraycopy(connection, at, read, 0, read.length);
            reads.add(read);
        }
        return FrameGuard.reader(new DataReader(reads::poll), LIMIT).readBytes(connection.length);
    }

    private static byte[] connection(byte[]... frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(H2Frames.PREFACE);
        for (byte[] frame : frames) {
            out.writeBytes(frame);
        }
        return out.toByteArray();
    }

    private static byte[] frame(int type, int flags, byte[] payload) {
        return H2Frames.encode(type, flags, 1, payload);
    }
}
