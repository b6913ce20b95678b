/**
 * The warm engine: a long-lived JVM with a live Python engine that runs {@code deja check}, {@code deja sql} and
 * {@code deja view --png} for the command-line client, so that a one-shot command does not pay for a new JVM and a
 * new Python context.
 *
 * <p>{@link dev.deja.daemon.DaemonClient} is what the launcher starts for those commands; it uses the JDK only, so
 * that its JVM starts in a fraction of the time of the full command line. {@link dev.deja.daemon.DaemonServer} is
 * the warm engine itself. They talk over a Unix domain socket in a directory only the user can open (mode 0700),
 * and the server also checks the connecting process's user ({@code SO_PEERCRED}). The server serves one working
 * directory and environment at a time, so that every relative path and every setting means exactly what it would
 * in a new JVM; a command from elsewhere replaces it.
 */
package dev.deja.daemon;
