package dev.loanruntime.measure;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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

    DeriveReport measure(ScryptProvider requested, int threads, int count, int single) throws InterruptedException {
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        hasher.derive(password, salt, cost);    // warm-up: class loading, JIT, the native library's first page faults
        double[] wallMs = new double[single];
        double[] cpuMs = new double[single];
        for (int i = 0; i < single; i++) {
            long cpu0 = cpu.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            hasher.derive(password, salt, cost);
            wallMs[i] = (System.nanoTime() - t0) / 1e6;
            cpuMs[i] = (cpu.getCurrentThreadCpuTime() - cpu0) / 1e6;
        }
        int maxRunning = Derivations.defaultMaxRunning(Runtime.getRuntime().maxMemory(), cost);
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long processCpu0 = os.getProcessCpuTime();
        long gcCount0 = gcCount();
        long gcMs0 = gcMillis();
        long t0 = System.nanoTime();
        try (CryptoPool pool = new CryptoPool(new Derivations(hasher, maxRunning, count), threads, count);
                ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
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
        double poolSeconds = (System.nanoTime() - t0) / 1e9;
        double poolCpuMs = (os.getProcessCpuTime() - processCpu0) / 1e6;
        return DeriveReport.of(requested.label(), hasher.name(), cost.label(), threads, count, maxRunning,
                Runtime.getRuntime().availableProcessors(), wallMs, cpuMs, poolSeconds, poolCpuMs / count,
                gcCount() - gcCount0, gcMillis() - gcMs0);
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
