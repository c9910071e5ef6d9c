package org.pthread4j.internal;

/**
 * The one error a program gets when the JVM refuses the library's restricted FFM calls
 * ({@code --illegal-native-access=deny} without {@code --enable-native-access}): an
 * {@link IllegalCallerException} whose message names the flag to add.
 */
public final class NativeAccess {
    private NativeAccess() {
    }

    /**
     * {@return the exception to throw in its place}
     *
     * @param cause the JVM's refusal
     */
    public static IllegalCallerException denied(final IllegalCallerException cause) {
        final Module module = NativeAccess.class.getModule();
        final String flag = module.isNamed()
            ? "--enable-native-access=" + module.getName() + " (the library is on the module path)"
            : "--enable-native-access=ALL-UNNAMED (the library is on the class path)";
        return new IllegalCallerException("pthread4j makes Linux system calls (futex, gettid, set_robust_list) "
            + "through the FFM API, and this JVM denies it native access: add " + flag
            + " to the java command line, or Enable-Native-Access: ALL-UNNAMED to the manifest of an executable jar",
            cause);
    }
}
