package dev.loanruntime.store;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
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
            "redis://h:1?x=1", "redis://h:70000", "postgres://h:5432", "redis://a:1,b:2", "redis-sentinel://h:1",
            "redis-sentinel://h:1/", "redis-sentinel://h:1,/m", "redis-sentinel://h:1/m/x", "redis-sentinel://h:1/m/0/1",
            "redis-sentinel://h:1/m?sentinelPassword=x", "rediss://"})
    void badValuesAreNamedWithTheAcceptedForms(String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StoreUri.parse(value));
        assertThat(e.getMessage(), allOf(containsString("'" + value + "'"),
                containsString(StoreUri.FORMS)));
    }

    @Test
    void postgresqlNamesOneHostItsDatabaseAndLogsInAsPostgresUnlessTold() {
        Map<String, String> env = Map.of(StoreAuth.PASSWORD_ENV, "from-env");
        StoreUri.Postgres uri = (StoreUri.Postgres) StoreUri.parse("postgresql://127.0.0.1/loans", env);
        assertThat(uri, is(new StoreUri.Postgres("127.0.0.1", 5432, "loans", new StoreAuth(null, "from-env"))));
        assertThat(uri.user(), is("postgres"));
        assertThat(uri.pooled(), is(true));
        StoreUri.Postgres ada = (StoreUri.Postgres) StoreUri.parse("postgresql://ada:the-secret@db:6543/loans", env);
        assertThat(ada.user(), is("ada"));
        assertThat(ada.auth().password(), is("the-secret"));
        assertThat(ada.toString(), is("postgresql://ada@db:6543/loans"));
        assertThat(StoreUri.parse(ada.toString(), env).toString(), is(ada.toString()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql://h:1", "postgresql://h:1/", "postgresql://a:1,b:2/loans",
            "postgresql://h:x/loans", "postgresql://h:1/lo ans"})
    void badPostgresqlValuesAreNamed(String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StoreUri.parse(value));
        assertThat(e.getMessage(), allOf(containsString("'" + value + "'"), containsString(StoreUri.FORMS)));
    }

    @Test
    void credentialsComeFromTheUriOrTheEnvironment() {
        Map<String, String> env = Map.of(StoreAuth.PASSWORD_ENV, "from-env");
        assertThat(StoreUri.parse("redis://ada:p%40ss@h:1/2", env),
                is(new StoreUri.Redis("h", 1, 2, false, new StoreAuth("ada", "p@ss"))));
        assertThat(StoreUri.parse("redis://h:1", env), is(new StoreUri.Redis("h", 1, 0, false, new StoreAuth(null, "from-env"))));
        assertThat(StoreUri.parse("rediss://ada@h:1", env), is(new StoreUri.Redis("h", 1, 0, true, new StoreAuth("ada", "from-env"))));
        assertThat(StoreUri.parse("redis://h:1", Map.of()), is(new StoreUri.Redis("h", 1, 0)));
    }

    @Test
    void sentinelNamesItsSentinelsItsMasterAndItsOwnPassword() {
        Map<String, String> env = Map.of(StoreAuth.PASSWORD_ENV, "data", StoreAuth.SENTINEL_PASSWORD_ENV, "watch");
        StoreUri.Sentinel uri = (StoreUri.Sentinel) StoreUri.parse("redis-sentinel://a:26380,b,127.0.0.3:1/loans/3", env);
        assertThat(uri.sentinels(), is(List.of(new StoreUri.Address("a", 26380), new StoreUri.Address("b", 26379),
                new StoreUri.Address("127.0.0.3", 1))));
        assertThat(uri.master(), is("loans"));
        assertThat(uri.database(), is(3));
        assertThat(uri.auth(), is(new StoreAuth(null, "data")));
        assertThat(uri.sentinelPassword(), is("watch"));
        assertThat(uri.defaultReplicas(), is(1));
        assertThat(StoreUri.parse("redis://h:1").defaultReplicas(), is(0));
        assertThat(uri.environment(), is(env));
    }

    @Test
    void noPrintedFormHoldsAPassword() {
        Map<String, String> env = Map.of(StoreAuth.SENTINEL_PASSWORD_ENV, "watch-secret");
        StoreUri redis = StoreUri.parse("redis://ada:the-secret@h:1/2", env);
        StoreUri sentinel = StoreUri.parse("redis-sentinel://ada:the-secret@a:1,b:2/m", env);
        assertThat(redis.toString(), is("redis://ada@h:1/2"));
        assertThat(sentinel.toString(), is("redis-sentinel://ada@a:1,b:2/m/0"));
        assertThat(((StoreUri.Redis) redis).auth() + " " + ((StoreUri.Sentinel) sentinel).auth(),
                not(containsString("secret")));
        for (StoreUri uri : List.of(redis, sentinel)) {
            // what a worker gets on its command line, parsed with the environment the primary gives it
            assertThat(StoreUri.parse(uri.toString(), uri.environment()), is(uri));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StoreUri.parse("redis://ada:the-secret@h:x"));
        assertThat(e.getMessage(), allOf(containsString("redis://ada:***@h:x"), not(containsString("secret"))));
    }
}
