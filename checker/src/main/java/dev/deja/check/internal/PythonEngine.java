package dev.deja.check.internal;

import java.io.OutputStream;
import java.io.PrintStream;
import org.graalvm.polyglot.Engine;

/**
 * The one GraalPy {@link Engine} of this process, shared by every script context: the first context pays
 * Python's start-up (seconds), later ones about a tenth of it, and compiled code is shared.
 *
 * <p>Whether the Graal JIT compiler is on depends on the JVM flags ({@code -XX:+EnableJVMCI} and the compiler
 * jars on {@code --upgrade-module-path}, which the launcher and the test configuration add). Without it the
 * engine interprets, about 20 times slower; that is said once, in one line, instead of the engine's own
 * multi-line warning.
 */
public final class PythonEngine {
    private static Engine engine;
    private static boolean warned;

    private PythonEngine() {
    }

    /** The shared engine, created on first use. */
    public static synchronized Engine get() {
        if (engine == null) {
            try {
                // Compile sooner and with less effort: a check is short and its predicates small, so warming up
                // matters more than peak speed (a 57,813-event Paxos check, 2nd to 4th in one process:
                // 9.7, 3.6, 2.4 s in the default mode, 5.1, 2.0, 1.6 s in this one).
                engine = builder().option("engine.Mode", "latency").build();
            } catch (IllegalArgumentException e) {
                // An engine without the JIT compiler has no compilation modes; it only interprets.
                engine = builder().build();
            }
        }
        return engine;
    }

    private static Engine.Builder builder() {
        return Engine.newBuilder("python")
                .option("engine.WarnInterpreterOnly", "false")
                .out(OutputStream.nullOutputStream())
                .err(OutputStream.nullOutputStream());
    }

    /** Whether runtime compilation is available ({@code "Interpreted"} is the name of the JIT-less engine). */
    public static boolean jit() {
        return !"Interpreted".equals(get().getImplementationName());
    }

    /** Prints, once per process, a one-line warning to {@code err} if the engine runs without the JIT. */
    public static synchronized void warnIfInterpreted(PrintStream err) {
        if (!warned && !jit()) {
            warned = true;
            err.println("deja: warning: Python predicates run interpreted (about 20x slower): this JVM has no Graal "
                    + "JIT compiler (needs -XX:+EnableJVMCI and the compiler jars of the JDK's exact version on "
                    + "--upgrade-module-path; the deja launcher adds them when the build copied them)");
        }
    }
}
