package dev.loanruntime.protocol;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * The experiments read the status lines through experiments/lib/lines.sh; this holds that file to the lines the Java
 * side prints: a primary's log written with {@link StatusLines}, read by each function of lines.sh in a real bash.
 * A change of a line's text on either side alone fails here.
 */
class StatusLinesShellTest {
    @TempDir
    static Path dir;
    private static Path log;

    @BeforeAll
    static void primaryLog() throws IOException {
        log = dir.resolve("cluster.log");
        Files.write(log, List.of(
                StatusLines.primary(100, 2),
                StatusLines.started(1, 101),
                StatusLines.started(2, 102),
                StatusLines.copiedFrom(1) + StatusLines.serving(101, "127.0.0.1", 8430, "threads=virtual store=local"),
                StatusLines.copiedFrom(2) + StatusLines.serving(102, "127.0.0.1", 8430, "threads=virtual store=local"),
                StatusLines.CLUSTER_READY,
                StatusLines.started(0, 103),
                StatusLines.copiedFrom(0) + StatusLines.standby(103, 900),
                StatusLines.standingBy(103, 2500),
                StatusLines.died(2, 102, 137, 0),
                StatusLines.nowSpare(2, 103),
                StatusLines.listening(2, 103, 41),
                StatusLines.started(0, 104),
                StatusLines.standingBy(104, 2400),
                StatusLines.rollingRestart(2),
                StatusLines.started(1, 105),
                StatusLines.replaced(1, 101, "stopped", 105, 4120),
                StatusLines.started(2, 106),
                StatusLines.replaced(2, 103, "exit 0", 106, 4090),
                StatusLines.ROLLING_RESTART_DONE,
                StatusLines.ROLLING_RESTART_RUNNING,
                StatusLines.stopping(2, 1),
                StatusLines.CLUSTER_STOPPED));
    }

    @Test
    void theServingLineGivesTheAddressAndThePid() throws Exception {
        assertThat(lines("serving_url \"$LOG\""), equalTo("http://127.0.0.1:8430"));
        assertThat(lines("serves_pid \"$LOG\" 102 && echo yes; serves_pid \"$LOG\" 10 || echo no"), equalTo("yes\nno"));
    }

    @Test
    void theStartedPromotedAndWarmProcessesAreTheOnesThePrimaryNamed() throws Exception {
        assertThat(lines("announced_workers \"$LOG\""), equalTo("101\n102\n103\n104\n105\n106"));
        assertThat(lines("slot_pids \"$LOG\" 2"), equalTo("102\n103\n106"));
        assertThat(lines("slot_pids \"$LOG\""), equalTo("101\n102\n103\n105\n106"));
        assertThat(lines("spares_standing_by \"$LOG\""), equalTo("104"));
        assertThat(lines("warm_spares \"$LOG\""), equalTo("103\n104"));
        assertThat(lines("promotion_ms \"$LOG\""), equalTo("41"));
    }

    @Test
    void theRegexesCountTheirLinesOnce() throws Exception {
        assertThat(lines("for r in \"$LINE_SERVING\" \"$LINE_CLUSTER_READY\" \"$LINE_STANDING_BY\" \"$LINE_REPLACED\"; "
                + "do grep -c \"$r\" \"$LOG\"; done; restarts_done \"$LOG\"; restart_steps \"$LOG\""),
                equalTo("2\n1\n2\n2\n1\n2"));
    }

    /** What {@code script} prints, with lines.sh sourced and LOG the primary's log; fails on a non-zero status. */
    private static String lines(String script) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c",
                "set -euo pipefail; source experiments/lib/lines.sh; " + script)
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().put("LOG", log.toString());
        Process bash = builder.start();
        String out;
        try {
            out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        } finally {
            if (!bash.waitFor(20, TimeUnit.SECONDS)) {
                bash.destroyForcibly();
            }
        }
        assertThat("bash -c '" + script + "' said: " + out, bash.exitValue(), equalTo(0));
        return out;
    }
}
