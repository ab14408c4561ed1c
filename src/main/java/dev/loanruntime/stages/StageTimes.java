package dev.loanruntime.stages;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * A {@code Server-Timing} header as this server writes it, read back: each stage's milliseconds in the order they
 * happened, and the request's origin (its first point, in milliseconds on the server's monotonic clock). For clients
 * ({@code probe --stages}) and tests; safe from any thread.
 */
public record StageTimes(Map<String, Double> millis, double origin) {
    public StageTimes {
        millis = Collections.unmodifiableMap(new LinkedHashMap<>(millis));
    }

    /**
     * Parses {@code carrier;dur=1.5, line;dur=0.02, ..., origin;desc="123.456"}. Entries without a duration (other
     * than the origin) are skipped, so a header from a proxy that adds its own metrics still reads.
     *
     * @throws IllegalArgumentException naming the header when a duration is not a number or the origin is missing
     */
    public static StageTimes parse(String header) {
        Map<String, Double> millis = new LinkedHashMap<>();
        Double origin = null;
        for (String entry : header.split(",")) {
            String[] parts = entry.trim().split(";");
            String name = parts[0].trim();
            for (int i = 1; i < parts.length; i++) {
                String param = parts[i].trim();
                try {
                    if (param.startsWith("dur=")) {
                        millis.put(name, Double.parseDouble(param.substring(4)));
                    } else if (name.equals("origin") && param.startsWith("desc=")) {
                        origin = Double.parseDouble(param.substring(5).replace("\"", ""));
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("not a number in Server-Timing '" + header + "': " + param, e);
                }
            }
        }
        if (origin == null) {
            throw new IllegalArgumentException("no origin in Server-Timing '" + header + "'");
        }
        return new StageTimes(millis, origin);
    }

    /** A stage's milliseconds, if the request went through it. */
    public OptionalDouble stage(String name) {
        Double ms = millis.get(name);
        return ms == null ? OptionalDouble.empty() : OptionalDouble.of(ms);
    }

    /** A stage's milliseconds, or 0 when the request did not go through it. */
    public double ms(String name) {
        return millis.getOrDefault(name, 0.0);
    }

    /** A stage's milliseconds, or 0 when the request did not go through it. */
    public double ms(Stage stage) {
        return ms(stage.label());
    }

    /** When the server had this request's response ready to send (origin + total), on the server's clock. */
    public double beforeSend() {
        return origin + ms(Stage.TOTAL) - ms(Stage.WRITE);
    }

    /** When the connection's thread first ran (origin + carrier), on the server's clock; first requests only. */
    public double firstRan() {
        return origin + ms(Stage.CARRIER);
    }
}
