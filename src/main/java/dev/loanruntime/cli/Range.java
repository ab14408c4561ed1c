package dev.loanruntime.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The values a numeric or duration option accepts, beside its {@code @Option}: the class that holds the option checks
 * every such field after parsing ({@link UsageError#checkRanges}), so that the error names the option, the range and
 * the value. For a {@link java.time.Duration}, {@code min} and {@code max} are milliseconds.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface Range {
    long min();

    long max();
}
