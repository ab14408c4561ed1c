package dev.loanruntime.store;

import java.nio.file.Path;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

class StoreUriTest {

    @Test
    void parsesTheThreeForms() {
        assertThat(StoreUri.parse("local"), instanceOf(StoreUri.Local.class));
        assertThat(StoreUri.parse("sqlite:data/loans.db"), is(new StoreUri.Sqlite(Path.of("data/loans.db"))));
        assertThat(StoreUri.parse("redis://cache.internal:6380/2"), is(new StoreUri.Redis("cache.internal", 6380, 2)));
        assertThat(StoreUri.parse("redis://127.0.0.1:6379"), is(new StoreUri.Redis("127.0.0.1", 6379, 0)));
        assertThat(StoreUri.parse("redis://localhost"), is(new StoreUri.Redis("localhost", 6379, 0)));
    }

    @Test
    void printsTheFormItWasParsedFrom() {
        assertThat(StoreUri.parse("redis://h:1/3").toString(), is("redis://h:1/3"));
        assertThat(StoreUri.parse("sqlite:loans.db").toString(), is("sqlite:loans.db"));
        assertThat(StoreUri.parse("local").toString(), is("local"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "memory", "sqlite:", "redis://", "redis://h:x", "redis://h:1/db", "redis://h:1/-1",
            "redis://u:p@h:1", "redis://h:1?x=1", "redis://h:70000", "postgres://h:5432"})
    void badValuesAreNamedWithTheAcceptedForms(String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StoreUri.parse(value));
        assertThat(e.getMessage(), allOf(containsString("'" + value + "'"),
                containsString("local, sqlite:PATH or redis://HOST:PORT[/DB]")));
    }
}
