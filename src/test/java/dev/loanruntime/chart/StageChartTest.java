package dev.loanruntime.chart;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import dev.loanruntime.testing.CliRun;
import dev.loanruntime.client.Outcome;
import dev.loanruntime.client.ProbeReport;
import dev.loanruntime.client.Results;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.closeTo;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;

/** {@code chart stages}: bars of stages from {@code probe --stages --json}, placed on the server's timeline. */
@ResourceLock(Resources.SYSTEM_OUT)   // CliRun swaps System.out and System.err
@ResourceLock(Resources.SYSTEM_ERR)
class StageChartTest {
    /**
     * One carrier, inline derivation: the heavy request reached the server at 5000 ms on its clock and held the
     * carrier in its handler until 5002.5 + 1000; the light one was accepted 50 ms later and waited in carrier until
     * then. The stages are listed out of order on purpose: a bar follows the order a request lives them.
     */
    private static final String BLOCKING = """
            {"config": {"label": "one carrier: blocking"},
             "rounds": [
              {"round": 1, "requests": [{"name": "heavy", "kind": "heavy", "stages": {"total": 1.0, "carrier": 1.0},
                                         "originMs": 1.0}]},
              {"round": 2, "requests": [
               {"name": "heavy", "kind": "heavy", "originMs": 5000.0,
                "stages": {"handler": 1000.0, "carrier": 1.0, "line": 0.5, "headers": 0.5, "admit": 0.5,
                           "total": 1002.5}},
               {"name": "light-1", "kind": "light", "originMs": 5050.0,
                "stages": {"carrier": 952.0, "line": 0.1, "headers": 0.1, "admit": 0.1, "handler": 0.2,
                           "total": 952.5}},
               {"name": "light-2", "kind": "light", "status": 0, "error": "timeout", "stages": null,
                "originMs": null}]}]}""";

    /** The derivation on the crypto pool, and a later request on a kept-alive connection (idle, then its line). */
    private static final String POOLED = """
            {"config": {"label": "one carrier: pooled"},
             "rounds": [{"round": 1, "requests": [
               {"name": "heavy", "kind": "heavy", "originMs": 200.0,
                "stages": {"carrier": 0.5, "line": 0.5, "headers": 0.5, "admit": 0.5, "handler": 2.0,
                           "crypto-queue": 1.0, "derive": 900.0, "resume": 0.5, "total": 905.5}},
               {"name": "light-1", "kind": "light", "originMs": 260.0,
                "stages": {"idle": 20.0, "headers": 0.2, "admit": 0.2, "handler": 0.6, "total": 1.0}}]}]}""";

    @TempDir
    Path dir;

    private static CliRun chart(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "chart";
        all[1] = "stages";
        System.arraycopy(args, 0, all, 2, args.length);
        return CliRun.of(all);
    }

    private Path json(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    private static StageBars bars(Path file) {
        return StageBars.of(Results.read(file), file, "test");
    }

    @Test
    void theLastRoundsRequestsLineUpOnTheServersClockInTheOrderTheyLiveTheirStages() throws IOException {
        StageBars bars = bars(json("blocking.json", BLOCKING));

        assertThat(bars.round(), is(2));
        StageBars.Row heavy = bars.rows().get(0);
        StageBars.Row light = bars.rows().get(1);
        assertThat(heavy.segments().stream().map(StageBars.Segment::stage).toList(),
                contains("carrier", "line", "headers", "admit", "handler"));
        StageBars.Segment handler = heavy.segments().get(4);
        assertThat(handler.fromMs(), closeTo(2.5, 1e-9));
        assertThat(handler.toMs(), closeTo(1002.5, 1e-9));
        StageBars.Segment carrier = light.segments().get(0);
        assertThat(carrier.stage(), is("carrier"));
        assertThat("accepted 50 ms after the heavy one", carrier.fromMs(), closeTo(50, 1e-9));
        assertThat("first ran when the heavy handler let go", carrier.toMs(), closeTo(1002, 1e-9));
        assertThat("a request without stages is a row without bars", bars.rows().get(2).segments(), is(empty()));
    }

    @Test
    void aKeptAliveRequestsIdleGapEndsAtItsOriginAndPooledStagesFollowTheHandler() throws IOException {
        StageBars bars = bars(json("pooled.json", POOLED));

        StageBars.Row heavy = bars.rows().get(0);
        assertThat(heavy.segments().stream().map(StageBars.Segment::stage).toList(),
                contains("carrier", "line", "headers", "admit", "handler", "crypto-queue", "derive", "resume"));
        assertThat(heavy.segments().get(7).toMs(), closeTo(905.5, 1e-9));
        StageBars.Segment idle = bars.rows().get(1).segments().get(0);
        assertThat(idle.stage(), is("idle"));
        assertThat(idle.fromMs(), closeTo(40, 1e-9));
        assertThat(idle.toMs(), closeTo(60, 1e-9));
    }

    @Test
    void probesJsonKeepsTheOriginThatPlacesItsBars() throws IOException {
        long t0 = 1_000_000_000L;
        Outcome heavy = new Outcome(t0, t0 + 12_000_000, 200, null,
                "carrier;dur=0.500, line;dur=0.500, handler;dur=10.000, total;dur=11.000, origin;desc=\"7000.000\"");
        Outcome light = new Outcome(t0 + 5_000_000, t0 + 12_500_000, 200, null,
                "carrier;dur=6.000, handler;dur=0.500, total;dur=6.500, origin;desc=\"7004.000\"");
        ProbeReport report = new ProbeReport(null, List.of(new ProbeReport.Round(1, List.of(
                ProbeReport.Request.of("heavy", "heavy", t0, heavy),
                ProbeReport.Request.of("light-1", "light", t0, light)))), null);
        Path file = dir.resolve("probe.json");
        Results.write(file, report);

        StageBars bars = bars(file);

        assertThat(bars.rows().get(0).segments().get(0).fromMs(), closeTo(0, 1e-9));
        StageBars.Segment carrier = bars.rows().get(1).segments().get(0);
        assertThat(carrier.fromMs(), closeTo(4, 1e-9));
        assertThat(carrier.toMs(), closeTo(10, 1e-9));
    }

    @Test
    void onePanelPerFileAndTheLightCarrierWaitEndsWhereTheHeavyHandlerEnds() throws IOException {
        Path blocking = json("blocking.json", BLOCKING);
        Path pooled = json("pooled.json", POOLED);
        Path png = dir.resolve("stages.png");
        Path one = dir.resolve("one.png");

        CliRun both = chart("--out", png.toString(), blocking.toString(), pooled.toString());
        CliRun single = chart("--out", one.toString(), blocking.toString());

        assertThat(both.err(), both.code(), is(0));
        assertThat(single.err(), single.code(), is(0));
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth(), is(StageChart.WIDTH));
        assertThat("two panels of 3 and 2 bars", image.getHeight(),
                is(StageChart.FRAME + 2 * StageChart.PANEL + 5 * StageChart.ROW));
        assertThat("the pooled panel's derive", columns(image, StageChart.COLOURS.get("derive")).count,
                greaterThan(1_000L));
        BufferedImage blockingOnly = ImageIO.read(one.toFile());
        assertThat(blockingOnly.getHeight(), is(StageChart.FRAME + StageChart.PANEL + 3 * StageChart.ROW));
        Extent carrier = columns(blockingOnly, StageChart.COLOURS.get("carrier"));
        Extent handler = columns(blockingOnly, StageChart.COLOURS.get("handler"));
        assertThat("no derive without the pool", columns(blockingOnly, StageChart.COLOURS.get("derive")).count,
                is(0L));
        assertThat("the light carrier wait is drawn", carrier.count, greaterThan(5_000L));
        // On one time axis the light request's carrier ends about where the heavy handler ends (2 px = 1 ms of
        // about 1,050 on roughly 1,100 px); drawn from 0 instead of its origin it would end ~50 px earlier.
        assertThat(Math.abs(carrier.maxX - handler.maxX), lessThan(4));
    }

    @Test
    void inputWithoutStagesOrOriginIsAUsageErrorOfOneLineNamingIt() throws IOException {
        Path png = dir.resolve("bad.png");
        Path noStages = json("plain.json", """
                {"rounds": [{"round": 1, "requests": [{"name": "heavy", "kind": "heavy", "durationMs": 1000.0,
                  "stages": null}]}]}""");
        Path noOrigin = json("old.json", """
                {"rounds": [{"round": 1, "requests": [{"name": "heavy", "kind": "heavy",
                  "stages": {"carrier": 1.0, "total": 1.0}}]}]}""");
        Path text = json("text.json", """
                {"rounds": [{"round": 1, "requests": [{"name": "heavy", "originMs": 1.0,
                  "stages": {"carrier": "long", "total": 1.0}}]}]}""");
        Path load = json("load.json", """
                {"throughputPerS": 100.0}""");
        Path broken = json("broken.json", "{\"rounds\": [");

        for (Object[] c : List.of(new Object[] {noStages, "run probe with --stages"},
                new Object[] {noOrigin, "\"originMs\" is"}, new Object[] {text, "\"long\""},
                new Object[] {load, "\"rounds\""}, new Object[] {broken, "broken.json"})) {
            String line = chart("--out", png.toString(), c[0].toString()).usageLine();
            assertThat(line, containsString(c[0].toString()));
            assertThat(line, containsString((String) c[1]));
        }
        assertThat(Files.exists(png), is(false));
        assertThat(chart("--out", png.toString()).code(), is(2));
        assertThat(chart("--out", png.toString(), dir.resolve("missing.json").toString()).err(),
                not(containsString("Exception")));
    }

    /** Where pixels of exactly this colour are: how many, and the leftmost and rightmost column. */
    private record Extent(long count, int minX, int maxX) {
    }

    private static Extent columns(BufferedImage image, Color colour) {
        int rgb = colour.getRGB();
        long count = 0;
        int min = Integer.MAX_VALUE;
        int max = -1;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if (image.getRGB(x, y) == rgb) {
                    count++;
                    min = Math.min(min, x);
                    max = Math.max(max, x);
                }
            }
        }
        return new Extent(count, min, max);
    }
}
