package org.pthread4j.cli.bench;

import org.pthread4j.futex.Futexes;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Where a run happened, so that two result files can be compared honestly: the tools' version
 * and the commit they were built from, the JDK, the kernel, the CPU model and count, the JVM
 * flags and the futex backends. {@code --version} prints it, and the bench JSON and CSV record
 * it.
 *
 * @param version  the tools' version
 * @param commit   the commit they were built from ({@code -modified} when the checkout had
 *                 changes, {@code unknown} outside a git checkout)
 * @param jdk      the JDK's version, vendor and home
 * @param kernel   the operating system, its release and the architecture
 * @param cpu      the CPU model
 * @param cores    the processors this JVM may use
 * @param jvmFlags this JVM's options
 * @param futex    the default private futex backend and the process-shared one
 */
public record Environment(String version, String commit, String jdk, String kernel, String cpu, int cores,
                          String jvmFlags, String futex) {
    private static final String BUILD = "/org/pthread4j/cli/build.properties";

    /** {@return this JVM's environment} */
    public static Environment current() {
        final Properties build = new Properties();
        try (InputStream in = Environment.class.getResourceAsStream(BUILD)) {
            if (in != null) {
                build.load(in);
            }
        } catch (final IOException e) {
            // unknown, as outside a build
        }
        return new Environment(build.getProperty("version", "unknown"), build.getProperty("commit", "unknown"),
            Runtime.version() + " (" + System.getProperty("java.vendor") + ", " + System.getProperty("java.home") + ")",
            System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
            cpuModel(), Runtime.getRuntime().availableProcessors(),
            String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()), futexBackends());
    }

    private static String cpuModel() {
        try {
            for (final String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("model name") && line.indexOf(':') > 0) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (final IOException | RuntimeException e) {
            // not Linux: the architecture is all we know
        }
        return System.getProperty("os.arch");
    }

    private static String futexBackends() {
        String shared;
        try {
            shared = Futexes.shared().name();
        } catch (final RuntimeException | Error e) {
            shared = "none (" + e.getMessage() + ")";
        }
        String priv;
        try {
            priv = Futexes.defaultPrivate().name();
        } catch (final RuntimeException | Error e) {
            priv = "none (" + e.getMessage() + ")";
        }
        return "private " + priv + ", process-shared " + shared;
    }

    /** {@return the fields by name, in order} */
    public Map<String, String> fields() {
        final Map<String, String> f = new LinkedHashMap<>();
        f.put("version", version);
        f.put("commit", commit);
        f.put("jdk", jdk);
        f.put("kernel", kernel);
        f.put("cpu", cpu);
        f.put("cores", Integer.toString(cores));
        f.put("jvmFlags", jvmFlags);
        f.put("futex", futex);
        return f;
    }
}
