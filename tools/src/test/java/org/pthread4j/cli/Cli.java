package org.pthread4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs {@code ./pthread4j} in this JVM, as the launcher would, and keeps what it printed. */
record Cli(int status, String out, String err) {
    static Cli run(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int status = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Cli(status, out.toString(), err.toString());
    }

    @Override
    public String toString() {
        return "status " + status + "\n--- out:\n" + out + "--- err:\n" + err;
    }
}
