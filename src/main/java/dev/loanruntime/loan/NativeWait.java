package dev.loanruntime.loan;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.util.Optional;

/**
 * A wait below a native frame: libc's {@code bsearch} over one element, whose comparator is an upcall into Java that
 * sleeps. The stack is then handler, native {@code bsearch}, comparator, {@code Thread.sleep}: a virtual thread
 * cannot unmount across the native frame, so it parks its carrier, and the JDK reports it as pinned
 * ({@code jdk.VirtualThreadPinned}). A wait entirely inside native code (a JNI driver blocked in {@code poll}) holds
 * the carrier the same way but raises no event, because the thread never tries to park.
 *
 * <p>Linked through the Foreign Function and Memory API, final in JDK 22 and a preview in 21. The project compiles
 * for 21, so it calls the API reflectively, once, at the first wait; on JDK 21 there is no native wait and
 * {@link #unavailable()} says why. {@link #sleep} runs on the caller's thread and blocks it.
 */
final class NativeWait {
    /** The first JDK whose FFM API is final. */
    static final int FIRST_FEATURE = 22;
    private static final ThreadLocal<Integer> MILLIS = new ThreadLocal<>();

    private NativeWait() {
    }

    /** Why this JVM has no native wait, or empty when it has one. */
    static Optional<String> unavailable() {
        return Linked.WHY_NOT;
    }

    /** Why a JVM of {@code version} has no native wait, or empty when it may have one. */
    static Optional<String> unavailableOn(Runtime.Version version) {
        if (version.feature() < FIRST_FEATURE) {
            return Optional.of("inside=native needs JDK " + FIRST_FEATURE + " or newer, where the Foreign Function "
                    + "and Memory API is final (in JDK " + version.feature() + " it is a preview); this JVM is "
                    + version);
        }
        return Optional.empty();
    }

    /**
     * Sleeps {@code ms} inside libc's {@code bsearch}, on the caller's thread.
     *
     * @throws IllegalStateException when {@link #unavailable()} names a reason
     */
    static void sleep(int ms) throws InterruptedException {
        if (Linked.WHY_NOT.isPresent()) {
            throw new IllegalStateException(Linked.WHY_NOT.get());
        }
        MILLIS.set(ms);
        try {
            Linked.BSEARCH.invokeExact();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("bsearch failed", e);
        } finally {
            MILLIS.remove();
        }
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted inside bsearch");
        }
    }

    /**
     * The comparator that libc calls, on the thread that called {@code bsearch}. An exception must not leave an
     * upcall (the JVM would exit), so an interrupt only sets the flag again for {@link #sleep} to see.
     */
    @SuppressWarnings("unused") // called from native code through the upcall stub
    private static int compare(Object key, Object element) {
        Integer ms = MILLIS.get();
        if (ms != null) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return 0;
    }

    /** Linked at the first wait (the holder idiom): no JVM pays for it unless a request asks for a native wait. */
    private static final class Linked {
        static final Optional<String> WHY_NOT;
        /** {@code bsearch(key, base, 1, 4, comparator)} with every argument bound: {@code ()void}. */
        static final MethodHandle BSEARCH;

        static {
            Optional<String> whyNot = unavailableOn(Runtime.version());
            MethodHandle bsearch = null;
            if (whyNot.isEmpty()) {
                try {
                    bsearch = link();
                } catch (ReflectiveOperationException | RuntimeException e) {
                    Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
                    whyNot = Optional.of("cannot link libc's bsearch: " + cause);
                }
            }
            WHY_NOT = whyNot;
            BSEARCH = bsearch;
        }

        /** What {@code Linker.nativeLinker()}, {@code downcallHandle} and {@code upcallStub} give, by reflection. */
        private static MethodHandle link() throws ReflectiveOperationException {
            Class<?> linkerType = Class.forName("java.lang.foreign.Linker");
            Class<?> optionType = Class.forName("java.lang.foreign.Linker$Option");
            Class<?> segmentType = Class.forName("java.lang.foreign.MemorySegment");
            Class<?> layoutType = Class.forName("java.lang.foreign.MemoryLayout");
            Class<?> valueLayouts = Class.forName("java.lang.foreign.ValueLayout");
            Class<?> descriptorType = Class.forName("java.lang.foreign.FunctionDescriptor");
            Class<?> arenaType = Class.forName("java.lang.foreign.Arena");
            Object address = valueLayouts.getField("ADDRESS").get(null);
            Object javaInt = valueLayouts.getField("JAVA_INT").get(null);
            Object javaLong = valueLayouts.getField("JAVA_LONG").get(null);
            Object noOptions = Array.newInstance(optionType, 0);

            Object linker = linkerType.getMethod("nativeLinker").invoke(null);
            Object lookup = linkerType.getMethod("defaultLookup").invoke(linker);
            Optional<?> symbol = (Optional<?>) Class.forName("java.lang.foreign.SymbolLookup")
                    .getMethod("find", String.class).invoke(lookup, "bsearch");
            if (symbol.isEmpty()) {
                throw new IllegalStateException("libc has no bsearch");
            }
            var of = descriptorType.getMethod("of", layoutType, layoutType.arrayType());
            // void *bsearch(const void *key, const void *base, size_t nmemb, size_t size, int (*compar)(...))
            Object bsearchType = of.invoke(null, address,
                    layouts(layoutType, address, address, javaLong, javaLong, address));
            Object compareType = of.invoke(null, javaInt, layouts(layoutType, address, address));
            MethodHandle bsearch = (MethodHandle) linkerType
                    .getMethod("downcallHandle", segmentType, descriptorType, optionType.arrayType())
                    .invoke(linker, symbol.get(), bsearchType, noOptions);

            MethodHandle compare = MethodHandles.lookup()
                    .findStatic(NativeWait.class, "compare",
                            MethodType.methodType(int.class, Object.class, Object.class))
                    .asType(MethodType.methodType(int.class, segmentType, segmentType));
            Object global = arenaType.getMethod("global").invoke(null);
            Object comparator = linkerType
                    .getMethod("upcallStub", MethodHandle.class, descriptorType, arenaType, optionType.arrayType())
                    .invoke(linker, compare, compareType, global, noOptions);
            Object element = arenaType.getMethod("allocate", long.class).invoke(global, 4L);
            MethodHandle bound = MethodHandles.insertArguments(bsearch, 0, element, element, 1L, 4L, comparator);
            return MethodHandles.dropReturn(bound);
        }

        private static Object layouts(Class<?> layoutType, Object... layouts) {
            Object array = Array.newInstance(layoutType, layouts.length);
            for (int i = 0; i < layouts.length; i++) {
                Array.set(array, i, layouts[i]);
            }
            return array;
        }
    }
}
