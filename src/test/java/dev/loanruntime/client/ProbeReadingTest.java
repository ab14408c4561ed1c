package dev.loanruntime.client;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/** The line that ends {@code probe}: what its numbers say, in words. */
class ProbeReadingTest {
    private static ProbeReport.Summary summary(double heavyS, double lightS, int failed) {
        return new ProbeReport.Summary(heavyS, heavyS, lightS, lightS, heavyS == 0 ? 0 : lightS / heavyS, failed);
    }

    @Test
    void lightRequestsThatTookMostOfTheHeavyOneWaitedForIt() {
        assertThat(summary(1.0, 0.97, 0).reading(),
                is("the light requests waited for the heavy one: 0.97 of it (median light / median heavy)"));
    }

    @Test
    void lightRequestsThatTookLittleOfItDidNotWait() {
        assertThat(summary(1.0, 0.012, 0).reading(),
                is("the light requests did not wait for the heavy one: 0.01 of it (median light / median heavy)"));
    }

    @Test
    void inBetweenIsReadAsPartAndFailuresAreNamed() {
        assertThat(summary(1.0, 0.4, 2).reading(), is("the light requests waited for part of the heavy one: 0.40 of"
                + " it (median light / median heavy); 2 request(s) failed, so read it with care"));
        assertThat(summary(0, 0.4, 0).reading(),
                is("no heavy request was timed, so nothing can be read about waiting for it"));
    }
}
