package dev.loanruntime.serve;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.helidon.config.Config;

import dev.loanruntime.crypto.PasswordHasher;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.runtime.Carriers;
import dev.loanruntime.settings.ThreadModel;
import dev.loanruntime.settings.Switch;

/**
 * A server whose derivations spin the CPU for a fixed time and allocate nothing, so a derivation holds its thread
 * (and a virtual thread's carrier) for a known time and no GC blurs the stages. It prints {@link #SPINNING} each
 * time a derivation starts. Arguments: carriers, thread model ({@code virtual|platform}), milliseconds per
 * derivation, stages, then any serve options. For tests, in a child JVM ({@code ServerProcess.start}).
 */
public final class SpinningHasherServer {
    static final String SPINNING = "derivation spinning";

    private SpinningHasherServer() {
    }

    public static void main(String[] args) throws Exception {
        int carriers = Integer.parseInt(args[0]);
        Carriers.configure(carriers);    // before anything creates a virtual thread
        ServeOptions options = ServeOptions.parse("--port", "0", "--carriers", args[0], "--threads", args[1],
                "--platform-threads", "8", "--crypto-threads", "1", "--max-derivations", "4");
        if (!args[3].equals("default")) {
            options = options.with("--stages", args[3]);
        }
        options = options.with(Arrays.copyOfRange(args, 4, args.length));
        Spinner spinner = new Spinner(Long.parseLong(args[2]) * 1_000_000);
        try (LoanServer server = LoanServer.start(options, Config.create(), spinner)) {
            System.out.println("spinning-hasher server address=http://127.0.0.1:" + server.port()
                    + (server.adminPort().isPresent() ? " admin=http://127.0.0.1:" + server.adminPort().getAsInt() : ""));
            System.in.read();   // until the test closes the pipe or kills the process
        }
    }

    /**
     * {@code stages}: {@code on}, {@code off}, or {@code default} (what a plain {@code serve} does); {@code options}:
     * serve options beside, e.g. {@code --limit fixed:1:0}.
     */
    public static List<String> args(int carriers, String threads, long spinMillis, String stages,
                                    String... options) {
        List<String> args = new ArrayList<>(List.of(Integer.toString(carriers), threads, Long.toString(spinMillis),
                stages));
        args.addAll(List.of(options));
        return args;
    }

    /** Spins on the clock: never parks, never allocates (the key is one shared array). */
    private static final class Spinner implements PasswordHasher {
        private static final byte[] KEY = new byte[ScryptCost.LESSON.keyLength()];
        private final long nanos;

        Spinner(long nanos) {
            this.nanos = nanos;
        }

        @Override
        public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
            System.out.println(SPINNING);
            long end = System.nanoTime() + nanos;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            return KEY;
        }

        @Override
        public String name() {
            return "spinning-fake";
        }
    }
}
