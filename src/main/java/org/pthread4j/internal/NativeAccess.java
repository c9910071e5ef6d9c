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
        // The manifest attribute grants only the unnamed module of the jar run with java -jar.
        final String what = module.isNamed()
            ? "--enable-native-access=" + module.getName() + " to the java command line (the library is on the module path)"
            : "--enable-native-access=ALL-UNNAMED to the java command line (the library is on the class path),"
                + " or Enable-Native-Access: ALL-UNNAMED to the manifest of an executable jar";
        return new IllegalCallerException("pthread4j needs native access for its FFM calls (the futex, gettid and "
            + "set_robust_list system calls; views of an AtomicBuffer's memory), and this JVM denies it: add " + what, cause);
    }
}
