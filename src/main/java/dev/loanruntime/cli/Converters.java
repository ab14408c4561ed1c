package dev.loanruntime.cli;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.function.Function;

import picocli.CommandLine;

import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.crypto.ScryptProvider;
import dev.loanruntime.overload.ConcurrencyLimit;
import dev.loanruntime.settings.Threshold;
import dev.loanruntime.settings.ThreadModel;
import dev.loanruntime.settings.Switch;
import dev.loanruntime.stages.ServerTiming;
import dev.loanruntime.store.StoreUri;

/**
 * picocli converters for the value types that options of several commands share. Each runs the type's own
 * {@code parse}, whose message names the bad value (picocli prints it as the usage error), and writes a value back
 * in the form that {@code parse} reads ({@link Format}): what a worker's command line is made of.
 */
public final class Converters {
    private Converters() {
    }

    /** A converter that also writes a value back: {@code convert(format(v))} equals {@code v}. */
    public interface Format<T> extends CommandLine.ITypeConverter<T> {
        String format(T value);
    }

    /** A converter from a type's {@code parse} and its inverse. */
    abstract static class Both<T> implements Format<T> {
        private final Function<String, T> parse;
        private final Function<T, String> format;

        Both(Function<String, T> parse, Function<T, String> format) {
            this.parse = parse;
            this.format = format;
        }

        @Override
        public T convert(String value) {
            return parsed(parse, value);
        }

        @Override
        public String format(T value) {
            return format.apply(value);
        }
    }

    /** {@code --limit none|fixed:PERMITS[:QUEUE]|aimd}. */
    public static final class ConcurrencyLimitConverter extends Both<ConcurrencyLimit> {
        public ConcurrencyLimitConverter() {
            super(ConcurrencyLimit::parse, ConcurrencyLimit::label);
        }
    }

    /** {@code --threads virtual|platform}. */
    public static final class ThreadModelConverter extends Both<ThreadModel> {
        public ThreadModelConverter() {
            super(ThreadModel::parse, ThreadModel::label);
        }
    }

    /** {@code --store local|sqlite:PATH|redis://...}. */
    public static final class StoreUriConverter extends Both<StoreUri> {
        public StoreUriConverter() {
            super(StoreUri::parse, StoreUri::toString);
        }
    }

    /** {@code N,r,p}: {@code serve --member-cost}, {@code derive --cost}. */
    public static final class ScryptCostConverter extends Both<ScryptCost> {
        public ScryptCostConverter() {
            super(ScryptCost::parse, ScryptCost::label);
        }
    }

    /** {@code --scrypt reuse|bouncycastle|conscrypt}: {@code serve} and {@code derive}. */
    public static final class ScryptProviderConverter extends Both<ScryptProvider> {
        public ScryptProviderConverter() {
            super(ScryptProvider::parse, ScryptProvider::label);
        }
    }

    /** {@code serve --server-timing on-request|always|off}. */
    public static final class ServerTimingConverter extends Both<ServerTiming> {
        public ServerTimingConverter() {
            super(ServerTiming::parse, ServerTiming::label);
        }
    }

    /** {@code serve --stages on|off}, {@code --pin-watch on|off}, {@code --http2 on|off}. */
    public static final class SwitchConverter extends Both<Switch> {
        public SwitchConverter() {
            super(Switch::parse, Switch::label);
        }
    }

    /** {@code serve --log-pinned off|DURATION}, {@code --log-slow-requests off|DURATION}. */
    public static final class ThresholdConverter extends Both<Threshold> {
        public ThresholdConverter() {
            super(Threshold::parse, Threshold::label);
        }
    }

    /** {@code serve --admin-port PORT|off}: a port (0: any free one), or none. */
    public static final class OptionalPortConverter extends Both<OptionalInt> {
        public OptionalPortConverter() {
            super(OptionalPortConverter::parse, port -> port.isPresent() ? Integer.toString(port.getAsInt()) : "off");
        }

        private static OptionalInt parse(String value) {
            if ("off".equals(value)) {
                return OptionalInt.empty();
            }
            if (value != null && value.matches("\\d{1,5}") && Integer.parseInt(value) <= 65_535) {
                return OptionalInt.of(Integer.parseInt(value));
            }
            throw new IllegalArgumentException("expected off or a port from 0 to 65535 but was '" + value + "'");
        }
    }

    /** Durations: {@code 500ms}, {@code 10s}, {@code 2m} ({@link Durations}). */
    public static final class DurationConverter extends Both<Duration> {
        public DurationConverter() {
            super(Durations::parse, Durations::format);
        }
    }

    /**
     * A duration ({@code 4s}, {@code 500ms}), or a whole number of seconds as the option took before it took durations
     * ({@code --drain-delay 4}, {@code LOAN_DRAIN_DELAY=10} in deploy/k8s).
     */
    public static final class SecondsOrDurationConverter extends Both<Duration> {
        public SecondsOrDurationConverter() {
            super(value -> value != null && value.trim().matches("\\d{1,6}") ? Duration.ofSeconds(Long.parseLong(
                    value.trim())) : Durations.parse(value), Durations::format);
        }
    }

    /** Runs a value type's {@code parse}; its message (naming the bad value) becomes picocli's usage error. */
    public static <T> T parsed(Function<String, T> parse, String value) {
        try {
            return parse.apply(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
