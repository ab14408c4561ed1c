package dev.loanruntime.agent;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

import dev.loanruntime.cli.Durations;
import dev.loanruntime.settings.Threshold;

/**
 * The agent's options, as {@code -javaagent:loan-runtime-agent.jar=OPTIONS} or {@code loan-runtime attach PID OPTIONS}
 * gives them: {@code name=value} pairs separated by commas, e.g. {@code port=9464,log-over=200ms}.
 *
 * @param port       where to serve {@code /metrics} (Prometheus text), empty for no HTTP at all
 * @param host       the address to bind it to; loopback unless asked otherwise
 * @param resolution how long the probes sleep between samples
 * @param logOver    a carrier delay that gets one line on stderr per second it lasts; off by default
 * @param pins       whether the pin watch runs: off by default, since it runs a JFR recording, and JFR at work costs
 *                   a service that starts a virtual thread per request a share of its CPU per request that experiment
 *                   18 measures (docs/agent.md)
 */
public record AgentOptions(OptionalInt port, String host, Duration resolution, Threshold logOver, boolean pins) {
    private static final Set<String> NAMES = Set.of("port", "host", "resolution", "log-over", "pins");

    /** Parses {@code OPTIONS} (null or empty: the defaults); the error names the bad option and value. */
    public static AgentOptions parse(String options) {
        Map<String, String> given = new LinkedHashMap<>();
        if (options != null && !options.isBlank()) {
            for (String pair : options.split(",")) {
                int eq = pair.indexOf('=');
                String name = eq < 0 ? pair.strip() : pair.substring(0, eq).strip();
                if (eq < 0 || !NAMES.contains(name)) {
                    throw new IllegalArgumentException("unknown option '" + pair.strip()
                            + "' (expected name=value with the names port, host, resolution, log-over, pins)");
                }
                given.put(name, pair.substring(eq + 1).strip());
            }
        }
        OptionalInt port = OptionalInt.empty();
        if (given.containsKey("port")) {
            String value = given.get("port");
            try {
                int p = Integer.parseInt(value);
                if (p < 0 || p > 65_535) {
                    throw new NumberFormatException();
                }
                port = OptionalInt.of(p);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("port: expected an integer from 0 to 65535 but was '" + value + "'");
            }
        }
        String host = given.getOrDefault("host", "127.0.0.1");
        if (host.isBlank()) {
            throw new IllegalArgumentException("host: expected a host name or address but was ''");
        }
        Duration resolution = Duration.ofMillis(10);
        if (given.containsKey("resolution")) {
            resolution = named("resolution", () -> Durations.parse(given.get("resolution")));
            if (resolution.compareTo(Duration.ofMillis(1)) < 0 || resolution.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IllegalArgumentException("resolution: expected a duration from 1ms to 1s but was '"
                        + given.get("resolution") + "'");
            }
        }
        Threshold logOver = given.containsKey("log-over")
                ? named("log-over", () -> Threshold.parse(given.get("log-over"))) : Threshold.OFF;
        String pins = given.getOrDefault("pins", "off");
        if (!pins.equals("on") && !pins.equals("off")) {
            throw new IllegalArgumentException("pins: expected on or off but was '" + pins + "'");
        }
        return new AgentOptions(port, host, resolution, logOver, pins.equals("on"));
    }

    private static <T> T named(String name, java.util.function.Supplier<T> parse) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }
}
