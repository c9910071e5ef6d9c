package org.pthread4j.cli;

/** Entry point of {@code ./pthread4j}. */
public final class Main {
    private Main() {
    }

    /** @param args the command line */
    public static void main(final String[] args) {
        System.err.println("usage: pthread4j bench [WORKLOAD]");
        System.exit(2);
    }
}
