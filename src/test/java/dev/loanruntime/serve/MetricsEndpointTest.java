package dev.loanruntime.serve;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

class MetricsEndpointTest {
    private static final String SCRAPE = """
            # HELP loan_counter the loan counter
            # TYPE loan_counter gauge
            loan_counter{scope="application",} 3.0
            up 1.0
            """;

    @Test
    void aWorkersScrapeNamesTheWorkerOnEverySampleAndNowhereElse() {
        assertThat(MetricsEndpoint.tidied(SCRAPE, "worker=\"2\""), is("""
                # HELP loan_counter the loan counter
                # TYPE loan_counter gauge
                loan_counter{worker="2",scope="application",} 3.0
                up{worker="2"} 1.0
                """));
    }

    @Test
    void aWindowsQuantilesComeInOrder() {
        String scrape = """
                # HELP loan_carrier_delay_seconds how late
                loan_carrier_delay_seconds{quantile="0.5",scope="application",} 1.0E-4
                loan_carrier_delay_seconds{quantile="1",scope="application",} 0.01
                loan_carrier_delay_seconds{quantile="0.99",scope="application",} 0.002
                loan_carrier_delay_samples{scope="application",} 990.0
                """;
        assertThat(MetricsEndpoint.tidied(scrape, ""), is("""
                # HELP loan_carrier_delay_seconds how late
                loan_carrier_delay_seconds{quantile="0.5",scope="application",} 1.0E-4
                loan_carrier_delay_seconds{quantile="0.99",scope="application",} 0.002
                loan_carrier_delay_seconds{quantile="1",scope="application",} 0.01
                loan_carrier_delay_samples{scope="application",} 990.0
                """));
    }

    @Test
    void aWorkersQuantilesComeInOrderAndNameTheWorker() {
        String scrape = """
                d{quantile="1",} 3.0
                d{quantile="0.5",} 1.0
                """;
        assertThat(MetricsEndpoint.tidied(scrape, "worker=\"1\""), is("""
                d{worker="1",quantile="0.5",} 1.0
                d{worker="1",quantile="1",} 3.0
                """));
    }

    @Test
    void aServerOfItsOwnLeavesTheScrapeAsItIs() {
        assertThat(MetricsEndpoint.tidied(SCRAPE, ""), is(SCRAPE));
    }
}
