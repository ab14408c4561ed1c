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
}
