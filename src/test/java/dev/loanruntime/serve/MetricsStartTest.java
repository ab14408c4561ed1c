package dev.loanruntime.serve;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import dev.loanruntime.runtime.Carriers;
import dev.loanruntime.testing.Locks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The metrics registry is a large part of a start that no request but a scrape needs: a {@link LoanApp} starts it
 * once its listener is up, or at the first scrape of a routing that has none, and a stop before either does not wait
 * for it.
 */
@ResourceLock(Locks.GLOBAL_METER_REGISTRY)
class MetricsStartTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static LoanApp app() {
        ServeOptions options = ServeOptions.parse("--crypto-threads", "1", "--crypto-queue", "4",
                "--carrier-delay", "off");
        return new LoanApp(options, new Carriers.Observation(options.execution().carriers(), "not checked"),
                options.crypto().scrypt().open().hasher());
    }

    @Test
    void theRegistryWaitsForTheListenerAndStartsWhenItIsUp() throws InterruptedException {
        try (LoanApp app = app()) {
            Thread.sleep(200);      // a start that did not wait would have begun by now
            assertThat("started before the listener", app.metricsStarted(), is(false));
            app.listening();
            String text = assertTimeoutPreemptively(PATIENCE, () -> app.metrics().text(List.of(), List.of()).orElseThrow());
            assertThat(text, containsString("loan_crypto_running"));
            assertThat(app.metricsStarted(), is(true));
        }
    }

    @Test
    void aScrapeWithoutAListenerStartsTheRegistry() {
        try (LoanApp app = app()) {
            String text = assertTimeoutPreemptively(PATIENCE, () -> app.metrics().text(List.of(), List.of()).orElseThrow());
            assertThat(text, containsString("loan_crypto_running"));
            assertThat(app.metricsStarted(), is(true));
        }
    }

    @Test
    void aStopBeforeTheListenerDoesNotWaitForTheRegistry() {
        LoanApp app = app();
        assertTimeoutPreemptively(PATIENCE, app::close);
        assertThat(app.metricsStarted(), is(false));
    }
}
