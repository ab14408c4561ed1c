package dev.loanruntime;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import dev.loanruntime.testing.CliRun;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

/** Misused store and member options end with status 2 and one line naming the option, the value and the forms. */
// In-process: an option check that stopped refusing would start a real server in the test JVM and wait for a
// signal. Parsing and refusing takes well under a second.
@Timeout(30)
@ResourceLock(Resources.SYSTEM_OUT)   // CliRun swaps System.out and System.err
@ResourceLock(Resources.SYSTEM_ERR)
class StoreOptionsTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--store        | mysql://db:3306      | postgresql://[USER@]HOST:PORT/DB (user postgres unless given)",
            "--store        | redis://cache:port   | postgresql://[USER@]HOST:PORT/DB (user postgres unless given)",
            "--store        | sqlite:              | postgresql://[USER@]HOST:PORT/DB (user postgres unless given)",
            "--store-replicas | -1                 | an integer from 0 to 16",
            "--store-replicas | 1                  | 0 with --store local (only a Redis store has replicas)",
            "--member-cost  | 1000,8,1             | N,r,p",
            "--member-cost  | 1048576,8,1          | 64 MiB",
            "--session-ttl  | 0                    | 1 to 86400"})
    void badValueExitsWithStatusTwoAndOneLine(String option, String value, String allowed) {
        String printed = CliRun.of("serve", "--port", "0", option, value).usageLine();
        assertThat(printed, allOf(containsString(option), containsString("'" + value + "'"), containsString(allowed)));
    }
}
