package dev.loanruntime.client;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What {@code derive} measured; also its JSON form.
 *
 * @param requested     the provider asked for
 * @param provider      the provider that derived (reuse when conscrypt could not load)
 * @param singleAllocatedBytes heap allocated by the deriving thread during one derivation alone (median)
 * @param singleGcCollections  garbage collections during the derivations alone
 * @param poolCpuMs     the process's CPU time during the pool phase per derivation (all threads, GC included)
 * @param poolAllocatedBytes   heap allocated by all threads during the pool phase, per derivation
 * @param efficiency    pool rate / (min(threads, cores) x single rate)
 * @param cpuEfficiency single derivation's CPU time / {@code poolCpuMs}: below 1 when deriving side by side costs
 *                      more CPU (collector, memory bandwidth); unlike {@code efficiency}, other processes on the
 *                      machine do not lower it
 * @param gcCollections garbage collections during the pool phase
 * @param gcMillis      time the collectors report for those collections
 */
record DeriveReport(String requested, String provider, String cost, int threads, int count, int maxDerivations,
                    int cores, String java, double[] singleMs, double singleMedianMs, double singleCpuMedianMs,
                    double singleRate, double singleAllocatedBytes, long singleGcCollections, double poolSeconds,
                    double poolCpuMs, double poolAllocatedBytes, double poolRate, double efficiency,
                    double cpuEfficiency, long gcCollections, long gcMillis) {

    static DeriveReport of(String requested, String provider, String cost, int threads, int count, int maxDerivations,
                           int cores, double[] wallMs, double[] cpuMs, double singleAllocatedBytes,
                           long singleGcCollections, double poolSeconds, double poolCpuMs, double poolAllocatedBytes,
                           long gcCollections, long gcMillis) {
        double median = DeriveRun.median(wallMs);
        double singleRate = 1000 / median;
        double poolRate = count / poolSeconds;
        double singleCpuMs = DeriveRun.median(cpuMs);
        return new DeriveReport(requested, provider, cost, threads, count, maxDerivations, cores,
                Runtime.version().toString(), wallMs, median, singleCpuMs, singleRate, singleAllocatedBytes,
                singleGcCollections, poolSeconds, poolCpuMs, poolAllocatedBytes, poolRate,
                poolRate / (Math.min(threads, cores) * singleRate), singleCpuMs / poolCpuMs, gcCollections, gcMillis);
    }

    void print(PrintStream out) {
        out.printf(Locale.ROOT, "derive scrypt=%s cost=%s threads=%d count=%d max-derivations=%d cores=%d java=%s%n",
                provider, cost, threads, count, maxDerivations, cores, java);
        out.printf(Locale.ROOT, "single    median %.0f ms of %d (%s ms), cpu %.0f ms: %.3f derivations/s, "
                        + "allocated %s each, %d GCs%n",
                singleMedianMs, singleMs.length,
                Arrays.stream(singleMs).mapToObj(ms -> String.format(Locale.ROOT, "%.0f", ms))
                        .collect(Collectors.joining(", ")),
                singleCpuMedianMs, singleRate, bytes(singleAllocatedBytes), singleGcCollections);
        out.printf(Locale.ROOT, "pool      %d derivations on %d threads in %.2f s: %.3f derivations/s, "
                        + "cpu %.0f ms each, allocated %s each, %d GCs taking %d ms%n", count, threads, poolSeconds,
                poolRate, poolCpuMs, bytes(poolAllocatedBytes), gcCollections, gcMillis);
        out.printf(Locale.ROOT, "efficiency %.2f (pool rate / (min(threads, cores) x single rate)), "
                + "cpu efficiency %.2f (single cpu / pool cpu per derivation)%n", efficiency, cpuEfficiency);
    }

    /** 19.6 KB, 512.3 MB: decimal units, as measured (not rounded to powers of two). */
    static String bytes(double b) {
        if (b < 1e3) {
            return String.format(Locale.ROOT, "%.0f B", b);
        }
        return b < 1e6 ? String.format(Locale.ROOT, "%.1f KB", b / 1e3)
                : String.format(Locale.ROOT, "%.1f MB", b / 1e6);
    }
}
