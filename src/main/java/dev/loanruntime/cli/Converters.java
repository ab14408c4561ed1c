package dev.loanruntime.cli;

import java.util.function.Function;

import picocli.CommandLine;

import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.crypto.ScryptProvider;
import dev.loanruntime.runtime.LogThreshold;
import dev.loanruntime.runtime.ThreadModel;
import dev.loanruntime.stages.Recording;
import dev.loanruntime.stages.ServerTiming;
import dev.loanruntime.store.StoreUri;

/**
 * picocli converters for the value types that options of several commands share. Each runs the type's own
 * {@code parse}, whose message names the bad value; picocli prints it as the usage error.
 */
public final class Converters {
    private Converters() {
    }

    /** {@code --threads virtual|platform}. */
    public static final class ThreadModelConverter implements CommandLine.ITypeConverter<ThreadModel> {
        @Override
        public ThreadModel convert(String value) {
            return parsed(ThreadModel::parse, value);
        }
    }

    /** {@code --store local|sqlite:PATH|redis://...}. */
    public static final class StoreUriConverter implements CommandLine.ITypeConverter<StoreUri> {
        @Override
        public StoreUri convert(String value) {
            return parsed(StoreUri::parse, value);
        }
    }

    /** {@code N,r,p}: {@code serve --member-cost}, {@code derive --cost}. */
    public static final class ScryptCostConverter implements CommandLine.ITypeConverter<ScryptCost> {
        @Override
        public ScryptCost convert(String value) {
            return parsed(ScryptCost::parse, value);
        }
    }

    /** {@code --scrypt reuse|bouncycastle|conscrypt}: {@code serve} and {@code derive}. */
    public static final class ScryptProviderConverter implements CommandLine.ITypeConverter<ScryptProvider> {
        @Override
        public ScryptProvider convert(String value) {
            return parsed(ScryptProvider::parse, value);
        }
    }

    /** {@code serve --server-timing on-request|always|off}. */
    public static final class ServerTimingConverter implements CommandLine.ITypeConverter<ServerTiming> {
        @Override
        public ServerTiming convert(String value) {
            return parsed(ServerTiming::parse, value);
        }
    }

    /** {@code serve --stages on|off}. */
    public static final class RecordingConverter implements CommandLine.ITypeConverter<Recording> {
        @Override
        public Recording convert(String value) {
            return parsed(Recording::parse, value);
        }
    }

    /** {@code serve --log-pinned off|DURATION}. */
    public static final class LogThresholdConverter implements CommandLine.ITypeConverter<LogThreshold> {
        @Override
        public LogThreshold convert(String value) {
            return parsed(LogThreshold::parse, value);
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
