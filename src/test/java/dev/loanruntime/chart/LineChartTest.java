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

/** {@code chart lines}: experiment 14's light p99 against the overload factor, a line per protection. */
@ResourceLock(Resources.SYSTEM_OUT)   // CliRun swaps System.out and System.err
@ResourceLock(Resources.SYSTEM_ERR)
class LineChartTest {
    @TempDir
    Path dir;

    private static long pixels(BufferedImage image, Color colour) {
        int rgb = colour.getRGB();
        return Arrays.stream(image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth()))
                .filter(p -> p == rgb).count();
    }

    @Test
    void eachSeriesIsALineInItsOwnColourOnALogarithmicAxis() throws IOException {
        Path data = Files.writeString(dir.resolve("p99.json"), """
                {"series": [{"label": "none", "points": [[1, 12.5], [2, 300], [5, 4100]]},
                            {"label": "guard", "points": [[1, 11], [2, 14], [5, 19]]}]}""");
        Path png = dir.resolve("p99.png");

        CliRun r = CliRun.of("chart", "lines", "--log", "--out", png.toString(), data.toString());

        assertThat(r.err(), r.code(), is(0));
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth(), is(Charts.WIDTH));
        assertThat("the first line", pixels(image, Charts.LIGHT), greaterThan(200L));
        assertThat("the second line", pixels(image, Charts.HEAVY), greaterThan(200L));
    }

    @Test
    void aPointThatIsNotTwoNumbersIsAUsageErrorNamingIt() throws IOException {
        Path data = Files.writeString(dir.resolve("bad.json"), """
                {"series": [{"label": "none", "points": [[1, "slow"]]}]}""");
        CliRun r = CliRun.of("chart", "lines", "--out", dir.resolve("bad.png").toString(), data.toString());
        assertThat(r.code(), is(2));
        assertThat(r.err(), containsString("series 'none' has a point that is not [x, y] in numbers"));
    }
}
