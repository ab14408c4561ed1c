package dev.loanruntime.chart;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import dev.loanruntime.testing.CliRun;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

/** {@code chart bars}: the PNGs the cluster and shared-store experiments draw from their counts. */
@ResourceLock(Resources.SYSTEM_OUT)   // CliRun swaps System.out and System.err
@ResourceLock(Resources.SYSTEM_ERR)
class BarChartTest {
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

    @TempDir
    Path dir;

    private Path json(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    /** Pixels of exactly this colour: the series' bars (the title, axes and labels are drawn in other colours). */
    private static long pixels(BufferedImage image, Color colour) {
        int rgb = colour.getRGB();
        return Arrays.stream(image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth()))
                .filter(p -> p == rgb).count();
    }

    @Test
    void barsFromASmallJsonFileAreAPngOfTheChartSize() throws IOException {
        Path data = json("spread.json", """
                {"categories": ["pid 101", "pid 102", "pid 103"],
                 "series": [{"label": "connections", "values": [97, 105, 98]}]}""");
        Path png = dir.resolve("spread.png");

        CliRun r = CliRun.of("chart", "bars", "--title", "300 connections", "--mark", "100", "--mark-label", "even share",
                "--out", png.toString(), data.toString());

        assertThat(r.err(), r.code(), is(0));
        byte[] head = Arrays.copyOf(Files.readAllBytes(png), PNG_SIGNATURE.length);
        assertThat(Arrays.equals(head, PNG_SIGNATURE), is(true));
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth(), is(Charts.WIDTH));
        assertThat(image.getHeight(), is(Charts.HEIGHT));
        assertThat("the bars", pixels(image, Charts.LIGHT), greaterThan(10_000L));
        assertThat("the dashed mark", pixels(image, Charts.HEAVY), greaterThan(100L));
    }

    @Test
    void stackedSeriesAreEachDrawnInTheirOwnColour() throws IOException {
        Path data = json("sessions.json", """
                {"categories": ["local", "sqlite", "redis"],
                 "series": [{"label": "200", "values": [9, 30, 30]}, {"label": "401", "values": [21, 0, 0]}]}""");
        Path png = dir.resolve("sessions.png");

        CliRun r = CliRun.of("chart", "bars", "--stacked", "--out", png.toString(), data.toString());

        assertThat(r.err(), r.code(), is(0));
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat("first series", pixels(image, Charts.LIGHT), greaterThan(10_000L));
        assertThat("second series", pixels(image, Charts.HEAVY), greaterThan(1_000L));
    }

    @Test
    void aFigureThatWasNotMeasuredDrawsNoBar() throws IOException {
        Path missing = json("missing.json", """
                {"categories": ["inline", "pooled"],
                 "series": [{"label": "p99 ms", "values": [null, 4]}]}""");
        Path measured = json("measured.json", """
                {"categories": ["inline", "pooled"],
                 "series": [{"label": "p99 ms", "values": [4, 4]}]}""");
        Path withGap = dir.resolve("gap.png");
        Path full = dir.resolve("full.png");

        CliRun r = CliRun.of("chart", "bars", "--log", "--out", withGap.toString(), missing.toString());
        assertThat(r.err(), r.code(), is(0));
        assertThat(CliRun.of("chart", "bars", "--log", "--out", full.toString(), measured.toString()).code(), is(0));

        long gap = pixels(ImageIO.read(withGap.toFile()), Charts.LIGHT);
        long both = pixels(ImageIO.read(full.toFile()), Charts.LIGHT);
        assertThat("one bar, not a bar at the axis' floor", gap > 0 && gap * 10 < both * 6, is(true));
    }

    @Test
    void aLogarithmicAxisShowsBarsFromAFractionOfAMillisecondToSeconds() throws IOException {
        Path data = json("delay.json", """
                {"categories": ["inline", "pooled"],
                 "series": [{"label": "p99 ms", "values": [1200, 0.4]}, {"label": "light p99 ms", "values": [1100, 3]}]}""");
        Path png = dir.resolve("delay.png");

        CliRun r = CliRun.of("chart", "bars", "--log", "--out", png.toString(), data.toString());

        assertThat(r.err(), r.code(), is(0));
        BufferedImage image = ImageIO.read(png.toFile());
        // the smallest bar still rises from below it: on a linear axis 0.4 of 1200 would be under a pixel
        assertThat("first series", pixels(image, Charts.LIGHT), greaterThan(10_000L));
        assertThat("second series", pixels(image, Charts.HEAVY), greaterThan(10_000L));
    }

    @Test
    void aZeroOnALogarithmicAxisIsAUsageErrorNamingIt() throws IOException {
        Path data = json("zero.json", """
                {"categories": ["a"], "series": [{"label": "n", "values": [0]}]}""");
        CliRun r = CliRun.of("chart", "bars", "--log", "--out", dir.resolve("zero.png").toString(), data.toString());
        assertThat(r.code(), is(2));
        assertThat(r.err(), containsString("series 'n' has the value 0.0"));
    }

    @Test
    void dataThatDoesNotFitItsCategoriesIsAUsageErrorNamingTheValue() throws IOException {
        Path png = dir.resolve("bad.png");
        Path shortSeries = json("short.json", """
                {"categories": ["a", "b", "c"], "series": [{"label": "n", "values": [1, 2]}]}""");
        Path notANumber = json("text.json", """
                {"categories": ["a"], "series": [{"label": "n", "values": ["many"]}]}""");
        Path noCategories = json("none.json", """
                {"series": [{"label": "n", "values": [1]}]}""");

        CliRun tooFew = CliRun.of("chart", "bars", "--out", png.toString(), shortSeries.toString());
        CliRun text = CliRun.of("chart", "bars", "--out", png.toString(), notANumber.toString());
        CliRun none = CliRun.of("chart", "bars", "--out", png.toString(), noCategories.toString());

        assertThat(tooFew.code(), is(2));
        assertThat(tooFew.err(), containsString("'n' needs 3 values, one per category, but has [1,2]"));
        assertThat(text.code(), is(2));
        assertThat(text.err(), containsString("\"many\""));
        assertThat(none.code(), is(2));
        assertThat(none.err(), containsString("\"categories\""));
        assertThat(Files.exists(png), is(false));
    }
}
