package dev.loanruntime.overload;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.helidon.common.concurrency.limits.AimdLimit;
import io.helidon.common.concurrency.limits.FixedLimit;
import io.helidon.common.concurrency.limits.Limit;

/**
 * {@code serve --limit}: Helidon's own concurrency limit on the listener ({@code server.concurrency-limit}), which
 * counts every request from its head to its answer, whatever its route: past the limit Helidon answers 503 and closes
 * the connection (the service's body: {@code overloaded}, with Retry-After).
 * <ul>
 *   <li>{@code none}: no limit (Helidon's default);</li>
 *   <li>{@code fixed:PERMITS[:QUEUE]}: {@code server.concurrency-limit.fixed} with {@code permits} and
 *       {@code queue-length} (default 0), Helidon's {@code queue-timeout} (1 s);</li>
 *   <li>{@code aimd}: {@code server.concurrency-limit.aimd}, additive increase on each answer faster than
 *       {@code timeout} (Helidon's 5 s) while half the limit is in use, times {@code backoff-ratio} (0.9) on each
 *       slower or failed one, with {@code min-limit} 1 and {@code initial-limit} the number of cores (Helidon's 20
 *       and 20 would let 20 derivations in on two cores), {@code max-limit} 200, no queue.</li>
 * </ul>
 *
 * @param kind    which one
 * @param permits fixed: requests at once
 * @param queue   fixed: requests that may wait for a permit
 */
public record ConcurrencyLimit(Kind kind, int permits, int queue) {
    /** No limit. */
    public static final ConcurrencyLimit NONE = new ConcurrencyLimit(Kind.NONE, 0, 0);
    private static final Pattern FIXED = Pattern.compile("fixed:(\\d{1,5})(?::(\\d{1,6}))?");
    private static final int AIMD_MAX = 200;

    /** The kinds of limit. */
    public enum Kind {
        NONE, FIXED, AIMD
    }

    /** Parses {@code none}, {@code fixed:PERMITS[:QUEUE]} or {@code aimd}; the error names the bad value. */
    public static ConcurrencyLimit parse(String value) {
        if ("none".equals(value)) {
            return NONE;
        }
        if ("aimd".equals(value)) {
            return new ConcurrencyLimit(Kind.AIMD, 0, 0);
        }
        Matcher m = FIXED.matcher(value == null ? "" : value);
        if (m.matches()) {
            int permits = Integer.parseInt(m.group(1));
            int queue = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
            if (permits >= 1 && permits <= 10_000 && queue <= 100_000) {
                return new ConcurrencyLimit(Kind.FIXED, permits, queue);
            }
        }
        throw new IllegalArgumentException("expected none, aimd or fixed:PERMITS[:QUEUE] (permits 1 to 10000, queue "
                + "0 to 100000) but was '" + value + "'");
    }

    /** The form {@link #parse} reads back. */
    public String label() {
        return switch (kind) {
            case NONE -> "none";
            case AIMD -> "aimd";
            case FIXED -> "fixed:" + permits + ":" + queue;
        };
    }

    /** The Helidon configuration this limit is, as {@code application.yaml} would say it; empty for none. */
    public String helidonConfig(int cores) {
        return switch (kind) {
            case NONE -> "";
            case FIXED -> "server.concurrency-limit.fixed: {permits: " + permits + ", queue-length: " + queue + "}";
            case AIMD -> "server.concurrency-limit.aimd: {min-limit: 1, initial-limit: " + cores + ", max-limit: "
                    + AIMD_MAX + "}";
        };
    }

    /** Helidon's limit for a machine of {@code cores} cores, or empty for none. */
    public Optional<Limit> create(int cores) {
        return switch (kind) {
            case NONE -> Optional.empty();
            case FIXED -> Optional.of(FixedLimit.create(b -> b.permits(permits).queueLength(queue)));
            case AIMD -> Optional.of(AimdLimit.create(b -> b.minLimit(1).initialLimit(Math.min(cores, AIMD_MAX))
                    .maxLimit(AIMD_MAX)));
        };
    }
}
