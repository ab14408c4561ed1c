package dev.loanruntime.settings;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An enum whose constants go by a lower-case label on the command line, in queries and in reports: its name with
 * {@code -} for {@code _}, {@code ON_REQUEST} as {@code on-request}. The enum implements this interface and gets
 * {@link #label()}; {@link #parse} and {@link #find} read a label back. crypto's {@code ScryptProvider} keeps a copy
 * of its own, since crypto imports nothing of this project.
 */
public interface Labelled {
    /** The constant's name, which every enum has. */
    String name();

    /** The name used on the command line, in queries and in reports: {@code on-request}. */
    default String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The constant of {@code type} whose {@link #label()} is {@code label}, if there is one. */
    static <E extends Enum<E> & Labelled> Optional<E> find(Class<E> type, String label) {
        return Arrays.stream(type.getEnumConstants()).filter(e -> e.label().equals(label)).findFirst();
    }

    /** The labels of {@code type}'s constants, in their order: {@code virtual, platform}. */
    static <E extends Enum<E> & Labelled> String labels(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(Labelled::label).collect(Collectors.joining(", "));
    }

    /**
     * The constant of {@code type} labelled {@code value}.
     *
     * @throws IllegalArgumentException naming the bad value and the labels: {@code expected one of virtual, platform
     *                                  but was 'fast'}
     */
    static <E extends Enum<E> & Labelled> E parse(Class<E> type, String value) {
        return find(type, value).orElseThrow(() -> new IllegalArgumentException(
                "expected one of " + labels(type) + " but was '" + value + "'"));
    }
}
