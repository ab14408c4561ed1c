package dev.loanruntime.protocol;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;

/**
 * The promotion of a cluster's spare worker, both ends. A spare is a worker JVM started with {@link #OPTION} that
 * has warmed up but does not listen; it prints {@link StatusLines#standby its standby line} and blocks on the pipe
 * from its primary. The primary promotes it by writing {@link StatusLines#listen listen <worker id>} on that pipe;
 * the spare then binds the shared port as that worker. End of file before a promotion means the primary is gone (or,
 * in a training run, that nobody will promote it).
 */
public final class Standby {
    /** The {@code serve} option that makes a process a spare. */
    public static final String OPTION = "--standby";

    private Standby() {
    }

    /** The line the primary writes to promote a spare to worker {@code id}. */
    public static byte[] promotion(int id) {
        return (StatusLines.listen(id) + "\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Blocks the calling thread until the primary writes a promotion; returns the worker id, or empty at end of
     * file. Reads one byte at a time, so nothing after the line is consumed: {@link PrimaryWatch} goes on reading
     * the same stream for the primary's end.
     *
     * @throws IllegalStateException on a line that is not a promotion (the primary and worker disagree)
     */
    static OptionalInt awaitPromotion(InputStream pipe) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        try {
            int b;
            while ((b = pipe.read()) >= 0 && b != '\n') {
                line.write(b);
            }
            if (b < 0) {
                return OptionalInt.empty();
            }
        } catch (IOException e) {
            return OptionalInt.empty(); // a broken pipe: the primary is gone
        }
        String text = line.toString(StandardCharsets.US_ASCII);
        try {
            if (text.startsWith(StatusLines.LISTEN)) {
                return OptionalInt.of(Integer.parseInt(text.substring(StatusLines.LISTEN.length()).trim()));
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalStateException("expected '" + StatusLines.LISTEN + "<worker id>' from the primary but read '"
                + text + "'");
    }
}
