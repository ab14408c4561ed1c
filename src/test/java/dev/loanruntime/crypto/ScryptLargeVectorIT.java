package dev.loanruntime.crypto;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.loanruntime.testing.ServerProcess;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;


/** RFC 7914's largest vector, which needs a JVM (and a heap) of its own: see {@link LargeVector}. */
class ScryptLargeVectorIT {
    /**
     * Section 12's last vector needs 1 GiB of V: derived in a child JVM with a heap that holds it, by both pure-Java
     * providers (about 6 s of CPU each). Conscrypt caps scrypt's memory below 1 GiB; it must refuse, not answer
     * another key.
     */
    @Test
    void derivesTheOneGibibyteVectorInAJvmOfItsOwn() throws Exception {
        try (ServerProcess jvm = ServerProcess.start(List.of("-Xmx1200m"), LargeVector.class.getName(),
                List.of("reuse", "bouncycastle", "conscrypt"))) {
            assertThat(jvm.output(), jvm.awaitExit(Duration.ofMinutes(5)), is(0));
            String key = "2101cb9b6a511aaeaddbbe09cf70f881ec568d574a2ffd4dabe5ee9820adaa47"
                    + "8e56fd8f4ba5d09ffa1c6d927c40f4c337304049e8a952fbcbf45c6fa77a41a4";
            // the JDK's warnings about Conscrypt's native access come on the same stream
            List<String> lines = jvm.output().lines().filter(line -> line.matches("(reuse|bouncycastle|conscrypt) .*"))
                    .toList();
            assertThat(jvm.output(), lines.get(0), is("reuse " + key));
            assertThat(jvm.output(), lines.get(1), is("bouncycastle " + key));
            assertThat(jvm.output(), lines.get(2).startsWith("conscrypt refused: ") && lines.get(2).contains("MEMORY_LIMIT_EXCEEDED"));
        }
    }
}
