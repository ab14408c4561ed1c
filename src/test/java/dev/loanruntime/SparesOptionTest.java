package dev.loanruntime;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

/** {@code cluster --spares}: a bad value is a usage error (status 2, one line) before any process starts. */
// In-process: an option check that stopped refusing would start a real server in the test JVM and wait for a
// signal. Parsing and refusing takes well under a second.
@Timeout(30)
class SparesOptionTest {
    @ParameterizedTest(name = "--spares {0}")
    @CsvSource(delimiter = '|', value = {
            "9|Invalid value for option '--spares': expected an integer from 0 to 8 but was '9'",
            "-1|Invalid value for option '--spares': expected an integer from 0 to 8 but was '-1'",
            "one|'one' is not an int"})
    void aBadValueExits2WithOneLineNamingIt(String value, String expected) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true),
                "cluster", "--port", "8431", "--spares", value);

        assertThat(err.toString(), code, is(2));
        assertThat(err.toString().strip().lines().count(), is(1L));
        assertThat(err.toString(), containsString(expected));
    }
}
