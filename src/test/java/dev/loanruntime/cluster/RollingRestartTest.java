package dev.loanruntime.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

class RollingRestartTest {
    @TempDir
    Path dir;

    @Test
    void warnsWhenTheKernelResetsAClosingListenersQueue() throws IOException {
        Path sysctl = Files.writeString(dir.resolve("tcp_migrate_req"), "0\n");

        assertThat(RollingRestart.queueWarning(sysctl).orElseThrow(), containsString("tcp_migrate_req=1"));
    }

    @Test
    void staysQuietWhenTheKernelHandsTheQueueOverOrHasNoSuchSetting() throws IOException {
        Path sysctl = Files.writeString(dir.resolve("tcp_migrate_req"), "1\n");

        assertThat(RollingRestart.queueWarning(sysctl).isPresent(), is(false));
        assertThat(RollingRestart.queueWarning(dir.resolve("absent")).isPresent(), is(false));
    }

    @Test
    void warnsWhenSighupIsIgnoredAsUnderNohup() throws IOException, InterruptedException {
        // A real process status, read by a process that nohup started: the kernel's format and nohup's effect.
        Process nohup = new ProcessBuilder("nohup", "cat", "/proc/self/status")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String status = new String(nohup.getInputStream().readAllBytes());
        assertThat(nohup.waitFor(), is(0));

        assertThat(RollingRestart.hangupWarning(Files.writeString(dir.resolve("status"), status)).orElseThrow(),
                containsString("ignores SIGHUP"));
    }

    @Test
    void staysQuietWhenSighupIsHandledOrTheStatusIsAbsent() throws IOException {
        Path status = Files.writeString(dir.resolve("status"), "Name:\tjava\nSigIgn:\t0000000000001000\n");

        assertThat(RollingRestart.hangupWarning(status).isPresent(), is(false));
        assertThat(RollingRestart.hangupWarning(dir.resolve("absent")).isPresent(), is(false));
    }
}
