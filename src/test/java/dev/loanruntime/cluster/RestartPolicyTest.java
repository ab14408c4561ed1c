package dev.loanruntime.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

class RestartPolicyTest {
    private static final Optional<Duration> NEVER_READY = Optional.empty();

    private static RestartPolicy policy(int maxFastFailures) {
        return new RestartPolicy(RestartPolicy.Settings.of(Duration.ofSeconds(5), maxFastFailures));
    }

    private static long delayMillis(RestartPolicy.Decision decision) {
        assertThat(decision, instanceOf(RestartPolicy.Decision.Restart.class));
        return ((RestartPolicy.Decision.Restart) decision).delay().toMillis();
    }

    @Test
    void theFirstRestartIsImmediateThenTheDelayGrowsByHalfFromOneHundredMillisUpToFifteenSeconds() {
        RestartPolicy policy = policy(1000);
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            delays.add(delayMillis(policy.onExit(NEVER_READY)));
        }
        assertThat(delays.subList(0, 5), contains(0L, 100L, 150L, 225L, 337L));
        assertThat(delays.get(13), is(12_974L));
        assertThat(delays.get(14), is(15_000L));
    }

    @Test
    void givesUpAfterTheLimitOfConsecutiveFastFailures() {
        RestartPolicy policy = policy(10);
        for (int i = 1; i < 10; i++) {
            assertThat(policy.onExit(Optional.of(Duration.ofSeconds(1))), instanceOf(RestartPolicy.Decision.Restart.class));
        }
        RestartPolicy.Decision last = policy.onExit(NEVER_READY);
        assertThat(last, is(new RestartPolicy.Decision.GiveUp(10)));
    }

    @Test
    void aWorkerThatLivedPastTheMinimumUptimeEndsTheRunOfFastFailures() {
        RestartPolicy policy = policy(3);
        policy.onExit(NEVER_READY);
        policy.onExit(NEVER_READY);
        assertThat(policy.fastFailures(), is(2));
        policy.onExit(Optional.of(Duration.ofSeconds(6)));
        assertThat(policy.fastFailures(), is(0));
        assertThat(policy.onExit(NEVER_READY), instanceOf(RestartPolicy.Decision.Restart.class));
        assertThat(policy.onExit(NEVER_READY), instanceOf(RestartPolicy.Decision.Restart.class));
        assertThat(policy.onExit(NEVER_READY), is(new RestartPolicy.Decision.GiveUp(3)));
    }

    @Test
    void aWorkerUpForThirtySecondsMakesTheNextRestartImmediateAgain() {
        RestartPolicy policy = policy(100);
        for (int i = 0; i < 6; i++) {
            policy.onExit(NEVER_READY);
        }
        assertThat(delayMillis(policy.onExit(Optional.of(Duration.ofSeconds(10)))), is(759L));
        assertThat(delayMillis(policy.onExit(Optional.of(Duration.ofSeconds(30)))), is(0L));
        assertThat(delayMillis(policy.onExit(NEVER_READY)), is(100L));
    }

    @Test
    void refusesALimitBelowOne() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> policy(0));
        assertThat(e.getMessage().contains("'0'"), is(true));
    }
}
