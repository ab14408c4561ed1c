package dev.loanruntime.serve;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.loanruntime.testing.ServerProcess;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

/** A second server on a port that a first one holds: one line that names the address, exit 1. */
@Timeout(180)
class TakenPortIT {
    @Test
    void aServerOnATakenPortSaysSoInOneLineAndExits1() throws Exception {
        try (ServerProcess first = ServerProcess.serve(List.of());
                ServerProcess second = ServerProcess.start(List.of(), "dev.loanruntime.Main",
                        List.of("serve", "--port", Integer.toString(first.port())))) {
            int exit = second.awaitExit(Duration.ofSeconds(90));
            String output = second.output();

            assertThat(output, exit, is(1));
            // Helidon's own report of the failed bind is a stack trace of about 40 lines
            assertThat(output, output.lines().count(), is(1L));
            assertThat(output, startsWith("loan-runtime: cannot listen on 127.0.0.1:" + first.port() + ": "));
        }
    }
}
