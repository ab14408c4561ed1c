package dev.loanruntime.overload;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.helidon.common.concurrency.limits.AimdLimit;
import io.helidon.common.concurrency.limits.FixedLimit;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ConcurrencyLimitTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "none|none|",
            "aimd|aimd|server.concurrency-limit.aimd: {min-limit: 1, initial-limit: 2, max-limit: 200}",
            "fixed:4|fixed:4:0|server.concurrency-limit.fixed: {permits: 4, queue-length: 0}",
            "fixed:8:16|fixed:8:16|server.concurrency-limit.fixed: {permits: 8, queue-length: 16}"})
    void eachLimitReadsBackAndNamesHelidonsConfiguration(String text, String label, String config) {
        ConcurrencyLimit limit = ConcurrencyLimit.parse(text);
        assertThat(limit.label(), is(label));
        assertThat(ConcurrencyLimit.parse(limit.label()), is(limit));
        assertThat(limit.helidonConfig(2), is(config == null ? "" : config));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"fixed:3:1|FixedLimit", "aimd|AimdLimit"})
    void theLimitIsHelidonsOwn(String text, String type) {
        Object limit = ConcurrencyLimit.parse(text).create(2).orElseThrow();
        assertThat(limit, instanceOf(type.equals("FixedLimit") ? FixedLimit.class : AimdLimit.class));
        assertThat(((io.helidon.common.concurrency.limits.SemaphoreLimit) limit).semaphore().availablePermits(),
                is(type.equals("FixedLimit") ? 3 : 2));
        assertThat(ConcurrencyLimit.NONE.create(2).isPresent(), is(false));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "fixed", "fixed:0", "fixed:-1", "fixed:1:x", "fixed:20000", "lifo", "aimd:3"})
    void aBadLimitNamesItsValue(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConcurrencyLimit.parse(text));
        assertThat(e.getMessage(), e.getMessage().endsWith("but was '" + text + "'"), is(true));
    }
}
