# Sourced by ./pthread4j and .ci/run: finds a JDK 25 or newer and exports JAVA_HOME.
# Order: $JAVA_HOME when it is 25+, else the newest 25+ JDK under /usr/lib/jvm.

pthread4j_java_major() {
    # prints the feature version of the java binary $1, or nothing
    "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -1
}

pthread4j_find_jdk() {
    local candidate major best="" best_major=0
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
        major=$(pthread4j_java_major "$JAVA_HOME/bin/java")
        if [ -n "$major" ] && [ "$major" -ge 25 ]; then
            export JAVA_HOME
            return 0
        fi
    fi
    for candidate in /usr/lib/jvm/*; do
        [ -x "$candidate/bin/java" ] && [ -x "$candidate/bin/javac" ] || continue
        major=$(pthread4j_java_major "$candidate/bin/java")
        if [ -n "$major" ] && [ "$major" -ge 25 ] && [ "$major" -gt "$best_major" ]; then
            best="$candidate"
            best_major="$major"
        fi
    done
    if [ -z "$best" ]; then
        echo "pthread4j needs a JDK 25 or newer: set JAVA_HOME to one, or install one under /usr/lib/jvm" >&2
        echo "(for example Temurin 25: temurin-25-jdk from the Adoptium apt repository)" >&2
        return 1
    fi
    export JAVA_HOME="$best"
}

# JVM flags every run of the library needs: FFM downcalls, and Agrona's Unsafe.
# Extra flags the caller set in PTHREAD4J_JVM_FLAGS (say -Dpthread4j.futex=linux) are kept after these.
PTHREAD4J_JVM_FLAGS="--enable-native-access=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED${PTHREAD4J_JVM_FLAGS:+ $PTHREAD4J_JVM_FLAGS}"
