package dev.loanruntime.serve;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

import io.helidon.config.Config;

import dev.loanruntime.crypto.PasswordHasher;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.runtime.Carriers;

/**
 * A server with one carrier whose inline derivation holds that carrier, busy, for exactly as long as a test wants:
 * it prints {@link #HOLDING} when it takes the carrier and lets go at the next line on its stdin. For tests that
 * need "every carrier busy" at a moment they choose, in a child JVM ({@code ServerProcess.start}).
 */
public final class CarrierHoldingServer {
    static final String HOLDING = "holding the only carrier";

    private CarrierHoldingServer() {
    }

    public static void main(String[] args) throws Exception {
        Carriers.configure(1);    // before anything creates a virtual thread
        Holder holder = new Holder();
        ServeOptions options = ServeOptions.parse("--port", "0", "--carriers", "1", "--crypto-threads", "1",
                "--crypto-queue", "4", "--max-derivations", "4").with(args);
        try (LoanServer server = LoanServer.start(options, Config.create(), holder)) {
            System.out.println("carrier-holding server address=http://127.0.0.1:" + server.port());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                holder.letGo = true;
            }
        }
    }

    /** Spins instead of deriving: a virtual thread that never parks keeps its carrier. */
    private static final class Holder implements PasswordHasher {
        volatile boolean letGo;

        @Override
        public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
            System.out.println(HOLDING);
            while (!letGo) {
                Thread.onSpinWait();
            }
            letGo = false;
            return new byte[cost.keyLength()];
        }

        @Override
        public String name() {
            return "carrier-holder";
        }
    }
}
