package org.pthread4j.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * Linux system calls through FFM: libc's variadic {@code syscall(long nr, ...)} with all six
 * arguments passed as {@code long} and errno captured. Results follow the kernel's convention:
 * a value {@code >= 0}, or a negated errno.
 *
 * <p>The handle is never linked with {@code Linker.Option.critical}: a futex wait blocks, and a
 * blocked critical call would stall every safepoint of the JVM.
 */
public final class Syscall {
    /** Whether this JVM runs on Linux on x86_64 or aarch64, the platforms with numbers here. */
    public static final boolean AVAILABLE;
    /** {@code SYS_futex}: 202 on x86_64, 98 on aarch64. */
    public static final long SYS_FUTEX;
    /** {@code SYS_gettid}: 186 on x86_64, 178 on aarch64. */
    public static final long SYS_GETTID;
    /** {@code SYS_set_robust_list}: 273 on x86_64, 99 on aarch64. */
    public static final long SYS_SET_ROBUST_LIST;
    /** {@code SYS_get_robust_list}: 274 on x86_64, 100 on aarch64. */
    public static final long SYS_GET_ROBUST_LIST;
    /** {@code SYS_prctl}: 157 on x86_64, 167 on aarch64. */
    public static final long SYS_PRCTL;
    /** {@code SYS_getpid}: 39 on x86_64, 172 on aarch64. */
    public static final long SYS_GETPID;

    private static final MethodHandle SYSCALL;
    private static final VarHandle ERRNO;
    private static final StructLayout CAPTURE_LAYOUT;
    private static final ThreadLocal<MemorySegment> CAPTURE;
    /** The JVM's refusal of native access, or null when it allowed it. */
    private static final IllegalCallerException DENIED;

    static {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        final boolean linux = os.contains("linux");
        final boolean x86 = arch.equals("amd64") || arch.equals("x86_64");
        final boolean arm = arch.equals("aarch64") || arch.equals("arm64");
        AVAILABLE = linux && (x86 || arm);
        SYS_FUTEX = x86 ? 202 : 98;
        SYS_GETTID = x86 ? 186 : 178;
        SYS_SET_ROBUST_LIST = x86 ? 273 : 99;
        SYS_GET_ROBUST_LIST = x86 ? 274 : 100;
        SYS_PRCTL = x86 ? 157 : 167;
        SYS_GETPID = x86 ? 39 : 172;
        MethodHandle handle = null;
        StructLayout layout = null;
        IllegalCallerException denied = null;
        if (AVAILABLE) {
            final Linker linker = Linker.nativeLinker();
            final MemorySegment fn = linker.defaultLookup().findOrThrow("syscall");
            final FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
            try {
                handle = linker.downcallHandle(fn, fd,
                    Linker.Option.firstVariadicArg(1), Linker.Option.captureCallState("errno"));
                layout = Linker.Option.captureStateLayout();
            } catch (final IllegalCallerException e) {
                denied = e;
            }
        }
        SYSCALL = handle;
        DENIED = denied;
        CAPTURE_LAYOUT = layout;
        if (layout != null) {
            final StructLayout l = layout;
            ERRNO = l.varHandle(MemoryLayout.PathElement.groupElement("errno"));
            CAPTURE = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(l));
        } else {
            ERRNO = null;
            CAPTURE = null;
        }
    }

    private Syscall() {
    }

    /**
     * Makes a system call.
     *
     * @param nr the call's number
     * @param a1 first argument
     * @param a2 second argument
     * @param a3 third argument
     * @param a4 fourth argument
     * @param a5 fifth argument
     * @param a6 sixth argument
     * @return the kernel's result, or a negated errno
     * @throws UnsupportedOperationException when not on Linux x86_64/aarch64
     * @throws IllegalCallerException         when the JVM denies the library native access (the
     *                                        message names the flag to add)
     */
    public static long call(final long nr, final long a1, final long a2, final long a3,
                            final long a4, final long a5, final long a6) {
        if (!AVAILABLE) {
            throw new UnsupportedOperationException("system calls need Linux on x86_64 or aarch64");
        }
        if (DENIED != null) {
            throw NativeAccess.denied(DENIED);
        }
        final MemorySegment capture = CAPTURE.get();
        final long r;
        try {
            r = (long) SYSCALL.invokeExact(capture, nr, a1, a2, a3, a4, a5, a6);
        } catch (final Throwable t) {
            throw new IllegalStateException("syscall " + nr + " failed to run", t);
        }
        if (r == -1) {
            return -(int) ERRNO.get(capture, 0L);
        }
        return r;
    }

    /** {@return the calling kernel thread's id ({@code gettid})} */
    public static int gettid() {
        return (int) call(SYS_GETTID, 0, 0, 0, 0, 0, 0);
    }

    /** {@return this process's id} */
    public static int getpid() {
        return (int) ProcessHandle.current().pid();
    }
}
