package org.pthread4j.jmh;

/** The JVM flags every forked benchmark JVM needs: FFM downcalls, and Agrona's Unsafe. */
final class Flags {
    /** For {@code @Fork(jvmArgsAppend = ...)}. */
    static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    /** For {@code @Fork(jvmArgsAppend = ...)}. */
    static final String ADD_EXPORTS = "--add-exports";
    /** The package Agrona 2.x needs. */
    static final String MISC = "java.base/jdk.internal.misc=ALL-UNNAMED";

    private Flags() {
    }
}
