/**
 * pthread4j: musl libc's thread synchronization on off-heap words and real futexes.
 */
module org.pthread4j {
    requires transitive org.agrona;
    requires static info.picocli;
    requires static HdrHistogram;
    requires static org.jfree.jfreechart;
    requires static java.desktop;
    requires static java.management;

    exports org.pthread4j;
    exports org.pthread4j.memory;
    exports org.pthread4j.futex;
    exports org.pthread4j.ipc;
    exports org.pthread4j.juc;
}
