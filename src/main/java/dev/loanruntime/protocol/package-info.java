/**
 * The protocol between a cluster's primary and its worker JVMs, both ends, and nothing else: the worker id in the
 * environment ({@link dev.loanruntime.protocol.PrimaryWatch#WORKER_ID_ENV}), {@code --standby} and the promotion of
 * a spare on its stdin ({@link dev.loanruntime.protocol.Standby}), the end of the primary seen as the end of that
 * pipe ({@link dev.loanruntime.protocol.PrimaryWatch}), and every status line either side prints
 * ({@link dev.loanruntime.protocol.StatusLines}), which experiments/lib/lines.sh reads for the scripts. It imports
 * nothing of the project: {@code serve} (the worker's side) and {@code cluster} (the primary's) both depend on it.
 */
package dev.loanruntime.protocol;
