package dev.loanruntime.monitor;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.closeTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

class LatencyWindowsTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private final LatencyWindows windows = new LatencyWindows();

    @Test
    void aStallFillsInTheSamplesItSwallowed() {
        windows.recordLateness(1000 * MS, 10 * MS);
        windows.roll();
        LatencyWindows.Summary s = windows.figures().lastWindow();
        // 1000, 990, ... 10 ms: what a probe that went on sampling every 10 ms would have seen
        assertThat(s.count(), is(100L));
        assertThat(s.maxMs(), closeTo(1000, 10));
        assertThat(s.p50Ms(), closeTo(500, 10));
    }

    @Test
    void aLatenessShorterThanTheIntervalIsOneSample() {
        windows.recordLateness(3 * MS, 10 * MS);
        windows.roll();
        assertThat(windows.figures().lastWindow().count(), is(1L));
        assertThat(windows.figures().lastWindow().maxMs(), closeTo(3, 0.05));
    }

    @Test
    void theLast10sForgetAWindowTenWindowsLaterWhileSinceStartKeepsIt() {
        windows.record(200 * MS);
        windows.roll();
        for (int i = 1; i < LatencyWindows.WINDOWS; i++) {
            windows.record(MS);
            windows.roll();
        }
        assertThat(windows.figures().last10s().count(), is(10L));
        assertThat(windows.figures().last10s().maxMs(), closeTo(200, 2));
        windows.record(MS);
        windows.roll();
        assertThat(windows.figures().last10s().count(), is(10L));
        assertThat(windows.figures().last10s().maxMs(), closeTo(1, 0.01));
        assertThat(windows.figures().sinceStart().count(), is(11L));
        assertThat(windows.figures().sinceStart().maxMs(), closeTo(200, 2));
    }

    @Test
    void nothingMeasuredHasNoFiguresNotZeros() {
        assertThat(windows.figures().last10s().p99Ms(), nullValue());
        windows.roll();
        assertThat(windows.figures().last10s().count(), is(0L));
        assertThat(windows.figures().last10s().p99Ms(), nullValue());
        assertThat(LatencyWindows.Summary.seconds(null), is(Double.NaN));
    }
}
