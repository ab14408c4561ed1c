package dev.loanruntime.serve;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import dev.loanruntime.testing.ServerProcess;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The live page in a real browser: headless Chromium, driven through Debian's chromedriver (nothing is downloaded).
 * On a one-carrier server whose derivations spin for {@value #SPIN_MS} ms, "send, inline" makes the page's
 * carrier-delay series pass 500 ms and its light requests wait; "send, pooled" leaves the delay under 50 ms. Each
 * case saves a screenshot under target/live/. Skipped, saying so, where Chromium or its driver is missing (.ci/run
 * installs both).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
@Isolated   // timing or CPU in its assertions: alone (junit-platform.properties)
class LivePageIT {
    private static final long SPIN_MS = 1500;
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "live");
    private ChromeDriver browser;

    @BeforeAll
    void openBrowser() {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "needs Debian's chromium and chromium-driver (" + CHROMIUM + ", " + CHROMEDRIVER + ")");
        ChromeDriverService driver = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                        "--window-size=1400,1000");
        browser = new ChromeDriver(driver, options);
    }

    @AfterAll
    void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void inlineHeavyRequestsShowAsCarrierDelayAndLightWaitsWithinSeconds() throws Exception {
        try (ServerProcess server = spinning()) {
            open(server);
            clickAndLoadLight("heavy-inline");
            await("the page's carrier-delay max passing 500 ms").atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> max("carrier-delay", "max") >= 500);
            await("the page's light requests waiting 300 ms or more").atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> max("light", "max") >= 300);
            assertThat(browser.findElement(By.id("model")).getText(), containsString("virtual threads on 1 carrier"));
            Thread.sleep(Duration.ofSeconds(2));   // the light requests' answers drawn
            screenshot("inline.png");
        }
    }

    @Test
    void pooledHeavyRequestsLeaveTheCarrierDelayLow() throws Exception {
        try (ServerProcess server = spinning()) {
            open(server);
            clickAndLoadLight("heavy-pooled");
            // three spins on the one crypto thread (4.5 s of work), then until the delay's 10-second window holds
            // nothing from before the click: the server's start and first answers are not what is asked about
            Thread.sleep(Duration.ofSeconds(11));
            assertThat("points the page drew", (double) points(), greaterThanOrEqualTo(10.0));
            assertThat("the page's carrier-delay p99 (ms) over the 10 s after pooled derivations were sent",
                    last("carrier-delay", "p99"), lessThan(50.0));
            screenshot("pooled.png");
        }
    }

    private ServerProcess spinning() throws IOException {
        return ServerProcess.startListening(List.of(), SpinningHasherServer.class.getName(),
                SpinningHasherServer.args(1, "virtual", SPIN_MS, "default"));
    }

    /** Opens the page and waits until it has drawn two polls. */
    private void open(ServerProcess server) {
        browser.get(server.adminUri() + "/live");
        await("the page's first polls").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                .until(() -> points() >= 2);
    }

    /** Starts the page's light load and presses a heavy button (3 requests, the page's default). */
    private void clickAndLoadLight(String button) {
        browser.findElement(By.id("light-toggle")).click();
        browser.findElement(By.id(button)).click();
    }

    private double max(String chart, String series) {
        Object v = ((JavascriptExecutor) browser).executeScript(
                "const m = window.loanLive.max(arguments[0], arguments[1]); return isFinite(m) ? m : null;", chart,
                series);
        return v == null ? Double.NEGATIVE_INFINITY : ((Number) v).doubleValue();
    }

    private double last(String chart, String series) {
        Object v = ((JavascriptExecutor) browser).executeScript(
                "return window.loanLive.last(arguments[0], arguments[1]);", chart, series);
        return v == null ? Double.NaN : ((Number) v).doubleValue();
    }

    private long points() {
        Object v = ((JavascriptExecutor) browser).executeScript(
                "return window.loanLive ? window.loanLive.points() : 0;");
        return ((Number) v).longValue();
    }

    private void screenshot(String name) throws IOException {
        File png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.createDirectories(SCREENSHOTS);
        Files.copy(png.toPath(), SCREENSHOTS.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    }
}
