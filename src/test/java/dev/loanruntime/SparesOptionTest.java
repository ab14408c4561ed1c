package dev.loanruntime;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import dev.loanruntime.testing.CliRun;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

/** {@code cluster --spares}: a bad value is a usage error (status 2, one line) before any process starts. */
// In-process: an option check that stopped refusing would start a real server in the test JVM and wait for a
// signal. Parsing and refusing takes well under a second.
@Timeout(30)
@ResourceLock(Resources.SYSTEM_OUT)   // CliRun swaps System.out and System.err
@ResourceLock(Resources.SYSTEM_ERR)
class SparesOptionTest {
    @ParameterizedTest(name = "--spares {0}")
    @CsvSource(delimiter = '|', value = {
            "9|Invalid value for option '--spares': expected an integer from 0 to 8 but was '9'",
            "-1|Invalid value for option '--spares': expected an integer from 0 to 8 but was '-1'",
            "one|'one' is not an int"})
    void aBadValueExits2WithOneLineNamingIt(String value, String expected) {
        assertThat(CliRun.of("cluster", "--port", "8431", "--spares", value).usageLine(), containsString(expected));
    }
}
