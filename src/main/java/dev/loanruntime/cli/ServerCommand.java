package dev.loanruntime.cli;

/**
 * A command that starts servers ({@code serve}, {@code cluster}): its options take the server's settings
 * ({@code loan.<option>} in application.yaml, {@code LOAN_<OPTION>}) as defaults ({@link SettingsDefaults}); the
 * other commands take only their own.
 */
public interface ServerCommand {
}
