package dev.loanruntime.client;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutionException;

import dev.loanruntime.crypto.CryptoPool;
import dev.loanruntime.crypto.Derivations;
import dev.loanruntime.crypto.PasswordHasher;
import dev.loanruntime.crypto.ScryptCost;
import dev.loanruntime.crypto.ScryptProvider;

/** Times derivations alone and on a {@link CryptoPool}. Blocks the calling thread for the whole measurement. */
final class DeriveRun {
    private final PasswordHasher hasher;
    private final ScryptCost cost;
    private final byte[] password;
    private final byte[] salt;

    DeriveRun(PasswordHasher hasher, ScryptCost cost, byte[] password, byte[] salt) {
        this.hasher = hasher;
        this.cost = cost;
        this.password = password;
        this.salt = salt;
    }

    /**
     * A warm-up (one derivation per pool thread, at once), {@code single} derivations one at a time on this thread,
     * then {@code count} at once on a crypto pool of {@code threads}: all through one {@link Derivations} bound like
     * the server's, so that {@code reuse} derives over the workspaces of its permits as it does there.
     */
    DeriveReport measure(ScryptProvider requested, int threads, int count, int single) throws InterruptedException {
        var cpu = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        int maxRunning = Derivations.defaultMaxRunning(Runtime.getRuntime().maxMemory(), cost);
        Derivations derivations = new Derivations(hasher, maxRunning, count, cost);
        try (CryptoPool pool = new CryptoPool(derivations, threads, count)) {
            // class loading, JIT, the workspaces of the permits the pool will use, the native library's first faults
            onPool(pool, Math.min(threads, maxRunning));
            double[] wallMs = new double[single];
            double[] cpuMs = new double[single];
            double[] allocated = new double[single];
            long singleGc0 = gcCount();
            for (int i = 0; i < single; i++) {
                long bytes0 = cpu.getCurrentThreadAllocatedBytes();
                long cpu0 = cpu.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                derivations.derive(password, salt, cost);
                wallMs[i] = (System.nanoTime() - t0) / 1e6;
                cpuMs[i] = (cpu.getCurrentThreadCpuTime() - cpu0) / 1e6;
                allocated[i] = cpu.getCurrentThreadAllocatedBytes() - bytes0;
            }
            long singleGc = gcCount() - singleGc0;
            long processCpu0 = os.getProcessCpuTime();
            long allocated0 = cpu.getTotalThreadAllocatedBytes();
            long gcCount0 = gcCount();
            long gcMs0 = gcMillis();
            long t0 = System.nanoTime();
            onPool(pool, count);
            double poolSeconds = (System.nanoTime() - t0) / 1e9;
            double poolCpuMs = (os.getProcessCpuTime() - processCpu0) / 1e6;
            double poolAllocated = (double) (cpu.getTotalThreadAllocatedBytes() - allocated0) / count;
            return DeriveReport.of(requested.label(), hasher.name(), cost.label(), threads, count, maxRunning,
                    Runtime.getRuntime().availableProcessors(), wallMs, cpuMs, median(allocated), singleGc,
                    poolSeconds, poolCpuMs / count, poolAllocated, gcCount() - gcCount0, gcMillis() - gcMs0);
        }
    }

    /** {@code count} derivations submitted at once from virtual threads; returns when all are done. */
    private void onPool(CryptoPool pool, int count) throws InterruptedException {
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<byte[]>> keys = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                keys.add(callers.submit(() -> pool.derive(password, salt, cost)));
            }
            for (Future<byte[]> key : keys) {
                key.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("a pooled derivation failed: " + e.getCause(), e.getCause());
        }
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    private static long gcCount() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
    }

    private static long gcMillis() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
    }
}
