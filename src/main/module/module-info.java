/**
 * pthread4j: musl libc's thread synchronization on off-heap words and real Linux futexes.
 *
 * <p>{@link org.pthread4j} holds the primitives (musl's {@code pthread_mutex_t},
 * {@code pthread_cond_t}, {@code pthread_rwlock_t}, {@code sem_t}, {@code pthread_once_t},
 * {@code pthread_barrier_t}, {@code pthread_spinlock_t}); {@link org.pthread4j.memory} the
 * off-heap words they live in; {@link org.pthread4j.futex} the futex layer they sleep on;
 * {@link org.pthread4j.ipc} files that share them between processes; {@link org.pthread4j.juc}
 * the {@code java.util.concurrent} adapters.
 *
 * <p>A program that uses the library on the module path runs with
 * {@code --enable-native-access=org.pthread4j}; on the class path with
 * {@code --enable-native-access=ALL-UNNAMED}.
 */
module org.pthread4j {
    requires transitive org.agrona;
    requires jdk.jfr;

    exports org.pthread4j;
    exports org.pthread4j.memory;
    exports org.pthread4j.futex;
    exports org.pthread4j.ipc;
    exports org.pthread4j.juc;
}
