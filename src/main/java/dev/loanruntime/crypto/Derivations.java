package dev.loanruntime.crypto;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs derivations on the calling thread under a memory bound: at most {@code maxRunning} derivations hold their
 * working memory at once, at most {@code maxWaiting} callers wait for a turn, and everyone else is refused with
 * {@link BusyException} at once. Without the bound, 500 concurrent heavy requests on platform threads would ask
 * for 500 x 64 MiB and end in an {@code OutOfMemoryError}.
 *
 * <p>A permit comes with a {@link Workspace} when the hasher uses one ({@code reuse}): made on first need, sized for
 * the largest cost given, kept when the derivation ends, cleared by the hasher. So at most {@code maxRunning}
 * workspaces ever exist, and after the first derivations the heavy path makes no garbage. The workspaces belong to
 * the permits and not to threads: {@code verify-blocking} derives on a new virtual thread per request.
 *
 * <p>Thread-safe. {@link #derive} blocks the caller while it waits and while it derives.
 */
public final class Derivations {
    private final PasswordHasher hasher;
    private final ScryptCost largest;
    private final int maxRunning;
    private final int maxWaiting;
    private final Semaphore permits;
    // The workspaces of the permits nobody holds: a permit holder takes one or makes one, and gives it back.
    private final ConcurrentLinkedQueue<Workspace> idle = new ConcurrentLinkedQueue<>();
    private final AtomicInteger workspaces = new AtomicInteger();
    private final AtomicLong workspaceBytes = new AtomicLong();
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();

    /** A bound whose workspaces are sized for the lesson's cost. */
    public Derivations(PasswordHasher hasher, int maxRunning, int maxWaiting) {
        this(hasher, maxRunning, maxWaiting, ScryptCost.LESSON);
    }

    /** A bound whose workspaces are sized for {@code largest} (a larger cost replaces a workspace by a larger one). */
    public Derivations(PasswordHasher hasher, int maxRunning, int maxWaiting, ScryptCost largest) {
        if (maxRunning < 1 || maxWaiting < 0) {
            throw new IllegalArgumentException("maxRunning must be >= 1 and maxWaiting >= 0");
        }
        this.hasher = hasher;
        this.largest = largest;
        this.maxRunning = maxRunning;
        this.maxWaiting = maxWaiting;
        this.permits = new Semaphore(maxRunning, true);
    }

    /**
     * The default bound: half of the maximum heap divided by one derivation's memory, at least 1. With {@code reuse}
     * that half is where the workspaces live (each a 64 MiB int array, which G1 allocates as a humongous object and
     * never copies); the other half stays for the server and the young generation. Conscrypt's derivations hold
     * native memory instead; the same bound then keeps the process within about 1.5 x -Xmx (heap plus at most half a
     * heap of derivations), where without it 500 concurrent derivations would map 32 GiB.
     */
    public static int defaultMaxRunning(long maxHeapBytes, ScryptCost cost) {
        return (int) Math.max(1, Math.min(1024, maxHeapBytes / 2 / cost.memoryBytes()));
    }

    /**
     * Derives on the calling thread once a memory permit is free.
     *
     * @throws BusyException when {@code maxWaiting} callers already wait
     * @throws DerivationException when the hasher fails
     */
    public byte[] derive(byte[] password, byte[] salt, ScryptCost cost) {
        acquire();
        running.incrementAndGet();
        Workspace workspace = null;
        try {
            if (hasher.usesWorkspace()) {
                workspace = takeWorkspace(cost);
            }
            return hasher.derive(password, salt, cost, workspace);
        } catch (RuntimeException | OutOfMemoryError e) {
            throw new DerivationException("scrypt derivation failed", e);
        } finally {
            if (workspace != null) {
                idle.add(workspace);
            }
            running.decrementAndGet();
            permits.release();
        }
    }

    /** Called with a permit held: the permit's workspace, or a new one when there is none yet or it is too small. */
    private Workspace takeWorkspace(ScryptCost cost) {
        Workspace workspace = idle.poll();
        if (workspace != null && workspace.fits(cost)) {
            return workspace;
        }
        if (workspace != null) {    // too small for this cost: dropped, so that the count stays one per permit
            workspaces.decrementAndGet();
            workspaceBytes.addAndGet(-workspace.bytes());
        }
        Workspace made = Workspace.forCosts(largest, cost);
        workspaces.incrementAndGet();
        workspaceBytes.addAndGet(made.bytes());
        return made;
    }

    private void acquire() {
        if (permits.tryAcquire()) {
            return;
        }
        if (waiting.incrementAndGet() > maxWaiting) {
            waiting.decrementAndGet();
            throw new BusyException("derivation-memory");
        }
        try {
            permits.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DerivationException("interrupted while waiting for a derivation permit", e);
        } finally {
            waiting.decrementAndGet();
        }
    }

    public int running() {
        return running.get();
    }

    public int waiting() {
        return waiting.get();
    }

    public int maxRunning() {
        return maxRunning;
    }

    public String hasherName() {
        return hasher.name();
    }

    /** Workspaces that exist (in use or idle): at most {@link #maxRunning()}. */
    public int workspaces() {
        return workspaces.get();
    }

    /** The heap the workspaces hold, in bytes. */
    public long workspaceBytes() {
        return workspaceBytes.get();
    }

    /** An idle workspace, or null: for tests that look at what a derivation left behind. */
    Workspace idleWorkspace() {
        return idle.peek();
    }
}
