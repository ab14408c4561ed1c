package dev.loanruntime.protocol;

import java.util.regex.Pattern;

/**
 * The status lines on standard output by which a server tells its primary, and scripts and tests, what it does,
 * and by which a cluster's primary reports its workers. This class is their one definition: the processes print
 * them through it and the primary, the tests and the experiments' scripts recognise them by its prefixes and
 * patterns (the scripts through experiments/lib/lines.sh, which {@code StatusLinesShellTest} holds to this class).
 * The text is an interface; change none of it without the scripts that read it.
 *
 * <table>
 *   <caption>Status lines (N a worker id, P a process id, T milliseconds, E an exit status)</caption>
 *   <tr><th>printed by</th><th>line</th><th>when</th></tr>
 *   <tr><td>server</td><td>{@code loan-runtime serving pid=P address=http://HOST:PORT threads=... scrypt=...}</td>
 *       <td>it listens (the primary's sign that a worker is ready)</td></tr>
 *   <tr><td>server</td><td>{@code loan-runtime standby pid=P warm-up=Tms}</td>
 *       <td>a spare is warm and waits for its promotion</td></tr>
 *   <tr><td>server</td><td>{@code loan-runtime draining pid=P delay=Tms}</td><td>after SIGTERM: it reports
 *       not-ready and keeps serving for T ms before its listener closes</td></tr>
 *   <tr><td>server</td><td>{@code loan-runtime stopped pid=P}</td><td>it stopped gracefully</td></tr>
 *   <tr><td>server</td><td>{@code loan-runtime warm-up=Tms}</td><td>the AOT training run ({@code --warm-up-only})
 *       finished</td></tr>
 *   <tr><td>primary, on a spare's stdin</td><td>{@code listen N}</td><td>it promotes the spare to worker N</td></tr>
 *   <tr><td>primary</td><td>{@code primary pid=P, worker count=N}</td><td>it starts</td></tr>
 *   <tr><td>primary</td><td>{@code worker N started pid=P}, {@code spare started pid=P}</td>
 *       <td>it started a worker or spare JVM</td></tr>
 *   <tr><td>primary</td><td>{@code cluster ready}</td><td>every worker serves (once)</td></tr>
 *   <tr><td>primary</td><td>{@code spare pid=P standing by, T ms after its start}</td><td>a spare is warm</td></tr>
 *   <tr><td>primary</td><td>{@code worker N is now spare pid=P}</td><td>it promoted spare P to worker N</td></tr>
 *   <tr><td>primary</td><td>{@code worker N pid=P listening T ms after its promotion}</td>
 *       <td>the promoted spare serves</td></tr>
 *   <tr><td>primary</td><td>{@code worker N died pid=P (exit E), starting a replacement in T ms}</td>
 *       <td>a worker ended unasked</td></tr>
 *   <tr><td>primary</td><td>{@code spare died pid=P (exit E), starting another in T ms}</td>
 *       <td>a spare ended unasked</td></tr>
 *   <tr><td>primary</td><td>{@code worker N replaced: pid=P (exit E) -> pid=P in MS ms}</td>
 *       <td>a rolling restart replaced worker N</td></tr>
 *   <tr><td>primary</td><td>{@code rolling restart of N workers}, {@code rolling restart done}</td>
 *       <td>SIGHUP started a rolling restart; it ended (done, or stopped with an error on stderr)</td></tr>
 *   <tr><td>primary</td><td>{@code rolling restart already running; SIGHUP ignored}</td><td>a second SIGHUP</td></tr>
 *   <tr><td>primary</td><td>{@code stopping N workers}</td><td>it stops the cluster</td></tr>
 *   <tr><td>primary</td><td>{@code cluster stopped}</td><td>all its workers ended; it exits next</td></tr>
 * </table>
 *
 * <p>The primary copies each worker's lines to its own output behind {@code [worker N] } or {@code [spare] }.
 * Only formats live here; call from any thread, nothing blocks.
 */
public final class StatusLines {
    /** The start of a server's line once it listens. */
    public static final String SERVING = "loan-runtime serving pid=";
    /** The start of a spare's line once it is warm and waits. */
    public static final String STANDBY = "loan-runtime standby pid=";
    /** The start of a server's line when it turns not-ready after SIGTERM and keeps serving for its drain delay. */
    public static final String DRAINING = "loan-runtime draining pid=";
    /** The start of a server's last line after a graceful stop. */
    public static final String STOPPED = "loan-runtime stopped pid=";
    /** The start of the promotion the primary writes on a spare's stdin; the worker id follows. */
    public static final String LISTEN = "listen ";
    /** The primary's line once every worker serves. */
    public static final String CLUSTER_READY = "cluster ready";
    /** The primary's line once all its workers ended. */
    public static final String CLUSTER_STOPPED = "cluster stopped";
    /** The primary's line when a rolling restart has replaced every worker. */
    public static final String ROLLING_RESTART_DONE = "rolling restart done";
    /** The primary's line when SIGHUP comes while a rolling restart runs. */
    public static final String ROLLING_RESTART_RUNNING = "rolling restart already running; SIGHUP ignored";
    /** The address in a serving line: group 1 the host, group 2 the port. */
    public static final Pattern ADDRESS = Pattern.compile("address=http://([^:\\s]+):(\\d+)");
    /** A primary's line that it started a worker or a spare: group 1 the process id. */
    public static final Pattern STARTED = Pattern.compile("(?:worker \\d+|spare) started pid=(\\d+)");
    /** A primary's line that it started a spare: group 1 the process id. */
    public static final Pattern SPARE_STARTED = Pattern.compile("spare started pid=(\\d+)");

    private StatusLines() {
    }

    /**
     * A server listens at {@code host:port}; {@code details} are its execution model, store and scrypt provider as
     * NAME=VALUE words (after the address, so the address stays where the scripts look for it).
     */
    public static String serving(long pid, String host, int port, String details) {
        return SERVING + pid + " address=http://" + host + ":" + port + " " + details;
    }

    /** A spare is warm and waits for {@link #LISTEN}. */
    public static String standby(long pid, long warmUpMillis) {
        return STANDBY + pid + " warm-up=" + warmUpMillis + "ms";
    }

    /** A server reports not-ready and keeps serving for {@code delayMillis} before its listener closes. */
    public static String draining(long pid, long delayMillis) {
        return DRAINING + pid + " delay=" + delayMillis + "ms";
    }

    /** A server stopped gracefully. */
    public static String stopped(long pid) {
        return STOPPED + pid;
    }

    /** The AOT cache's training run warmed up. */
    public static String warmUp(long millis) {
        return "loan-runtime warm-up=" + millis + "ms";
    }

    /** The promotion of a spare to worker {@code id}, as the primary writes it on the spare's stdin. */
    public static String listen(int id) {
        return LISTEN + id;
    }

    /** The primary starts, with {@code workers} workers to keep. */
    public static String primary(long pid, int workers) {
        return "primary pid=" + pid + ", worker count=" + workers;
    }

    /** The primary started worker {@code id}, or a spare for id 0. */
    public static String started(int id, long pid) {
        return (id == 0 ? "spare" : "worker " + id) + " started pid=" + pid;
    }

    /** What the primary puts before each line it copies from worker {@code id} (a spare for 0). */
    public static String copiedFrom(int id) {
        return id == 0 ? "[spare] " : "[worker " + id + "] ";
    }

    /** A spare is warm, {@code millis} after its JVM started. */
    public static String standingBy(long pid, long millis) {
        return standingBy(pid) + ", " + millis + " ms after its start";
    }

    /** The start of {@link #standingBy(long, long)}: what waiting for spare {@code pid} looks for. */
    public static String standingBy(long pid) {
        return "spare pid=" + pid + " standing by";
    }

    /** The primary promoted spare {@code pid} to worker {@code id}. */
    public static String nowSpare(int id, long pid) {
        return "worker " + id + " is now spare pid=" + pid;
    }

    /** The promoted spare listens, {@code millis} after its promotion. */
    public static String listening(int id, long pid, long millis) {
        return "worker " + id + " pid=" + pid + " listening " + millis + " ms after its promotion";
    }

    /** Worker {@code id} ended unasked; a replacement starts after {@code delayMillis}. */
    public static String died(int id, long pid, int exit, long delayMillis) {
        return "worker " + id + " died pid=" + pid + " (exit " + exit + "), starting a replacement in " + delayMillis
                + " ms";
    }

    /** A spare ended unasked; another starts after {@code delayMillis}. */
    public static String spareDied(long pid, int exit, long delayMillis) {
        return "spare died pid=" + pid + " (exit " + exit + "), starting another in " + delayMillis + " ms";
    }

    /**
     * A rolling restart replaced worker {@code id}: the step took {@code millis}, from the promotion to the old
     * worker's end, {@code end}: "stopped" (its stopped line) or "exit N" (it exited without one).
     */
    public static String replaced(int id, long oldPid, String end, long newPid, long millis) {
        return "worker " + id + " replaced: pid=" + oldPid + " (" + end + ") -> pid=" + newPid + " in " + millis
                + " ms";
    }

    /** A rolling restart of {@code workers} workers begins. */
    public static String rollingRestart(int workers) {
        return "rolling restart of " + workers + " workers";
    }

    /** The primary stops {@code workers} workers and {@code spares} spares. */
    public static String stopping(int workers, int spares) {
        return "stopping " + workers + " workers" + (spares == 0 ? "" : " and " + spares + (spares == 1 ? " spare"
                : " spares"));
    }
}
