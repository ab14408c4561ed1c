import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The live page as a person would use it, in headless Chromium: opens ADMIN_URL/live, starts the page's light load,
 * waits BASELINE_S, presses "send, inline" (3 heavy requests, the page's default) and times how long until the page's
 * carrier delay (its max, or "late now") passes 500 ms; PHASE_S after the press, reads the largest carrier delay and light latency the page
 * drew, presses "send, pooled", and PHASE_S later reads the page's last carrier-delay p99; then saves a screenshot of
 * the whole page to PNG. Prints one line:
 * "spike-seen-ms=S inline-delay-max-ms=D inline-light-max-ms=L pooled-delay-p99-ms=P points=N" (S is "-" when the
 * delay never passed 500 ms within PHASE_S).
 * The browser and its driver: $CHROMIUM (/usr/bin/chromium) and $CHROMEDRIVER (/usr/bin/chromedriver).
 * Run: java -cp 'target/browser-libs/*' experiments/LivePage.java ADMIN_URL PNG [BASELINE_S] [PHASE_S]
 */
public class LivePage {
    private static final double SPIKE_MS = 500;

    public static void main(String[] args) throws Exception {
        String adminUrl = args[0];
        Path png = Path.of(args[1]);
        Duration baseline = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 5);
        Duration phase = Duration.ofSeconds(args.length > 3 ? Long.parseLong(args[3]) : 14);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(env("CHROMEDRIVER", "/usr/bin/chromedriver")))
                .usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions().setBinary(env("CHROMIUM", "/usr/bin/chromium"))
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                        "--window-size=1120,1100", "--hide-scrollbars");
        ChromeDriver browser = new ChromeDriver(service, options);
        try {
            browser.get(adminUrl + "/live");
            waitFor(Duration.ofSeconds(20), () -> points(browser) >= 2, "the page's first two polls");
            browser.findElement(By.id("light-toggle")).click();
            Thread.sleep(baseline);

            browser.findElement(By.id("heavy-inline")).click();
            long pressed = System.nanoTime();
            Long seenMs = null;
            while (System.nanoTime() - pressed < phase.toNanos()) {
                if (seenMs == null && Math.max(max(browser, "carrier-delay", "max"),
                        max(browser, "carrier-delay", "late now")) >= SPIKE_MS) {
                    seenMs = (System.nanoTime() - pressed) / 1_000_000;
                }
                Thread.sleep(50);
            }
            double inlineDelayMax = max(browser, "carrier-delay", "max");
            double inlineLightMax = max(browser, "light", "max");

            browser.findElement(By.id("heavy-pooled")).click();
            Thread.sleep(phase);
            Object pooledP99 = script(browser, "return window.loanLive.last('carrier-delay', 'p99');");

            Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), png, StandardCopyOption.REPLACE_EXISTING);
            System.out.printf("spike-seen-ms=%s inline-delay-max-ms=%.1f inline-light-max-ms=%.1f "
                            + "pooled-delay-p99-ms=%s points=%d%n", seenMs == null ? "-" : seenMs, inlineDelayMax,
                    inlineLightMax, pooledP99 == null ? "-" : String.format("%.1f", ((Number) pooledP99).doubleValue()),
                    points(browser));
        } finally {
            browser.quit();
        }
    }

    private static String env(String name, String otherwise) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? otherwise : value;
    }

    private static Object script(ChromeDriver browser, String js, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(js, args);
    }

    /** The largest value of a chart's series the page keeps, or -infinity when it has none. */
    private static double max(ChromeDriver browser, String chart, String series) {
        Object v = script(browser, "const m = window.loanLive.max(arguments[0], arguments[1]);"
                + " return isFinite(m) ? m : null;", chart, series);
        return v == null ? Double.NEGATIVE_INFINITY : ((Number) v).doubleValue();
    }

    private static long points(ChromeDriver browser) {
        Object v = script(browser, "return window.loanLive ? window.loanLive.points() : 0;");
        return ((Number) v).longValue();
    }

    private static void waitFor(Duration limit, BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no " + what + " within " + limit.toSeconds() + " s");
            }
            Thread.sleep(100);
        }
    }
}
