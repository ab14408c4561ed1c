package dev.loanruntime.loan;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

class InsideTest {
    @Test
    void everyKindParsesFromItsLabel() {
        for (Inside inside : Inside.values()) {
            assertThat(Inside.parse(inside.label()), is(inside));
        }
    }

    @Test
    void aBadKindNamesTheAcceptedOnes() {
        assertThat(assertThrows(IllegalArgumentException.class, () -> Inside.parse("NATIVE")).getMessage(),
                is("query parameter 'inside' must be one of none, monitor, lock, native, db, was 'NATIVE'"));
    }

    @Test
    void jdk21HasNoNativeWaitAndSaysWhy() {
        var why = NativeWait.unavailableOn(Runtime.Version.parse("21.0.5+11"));
        assertThat(why.isPresent(), is(true));
        assertThat(why.get(), containsString("needs JDK 22 or newer"));
        assertThat(why.get(), containsString("21.0.5+11"));
        assertThat(NativeWait.unavailableOn(Runtime.Version.parse("22")).isPresent(), is(false));
    }
}
