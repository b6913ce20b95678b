package dev.deja.check.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.management.JMException;
import javax.management.ObjectName;
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
    /** Calls a Python function needs before Truffle compiles it; see {@link #get()}. */
    static final int MIN_CALLS_BEFORE_COMPILING = 30;

    /**
     * The HotSpot compiler directive that leaves the Graal compiler's own classes to C1; see
     * {@link #keepGraalCompilerOutOfC2()}.
     */
    static final String GRAAL_COMPILER_DIRECTIVE =
            "[{\"match\": [\"jdk/graal/compiler/*.*\"], \"c2\": {\"Exclude\": true}}]";

    /** What the name of every set-up function of the deja module contains (see {@link #NEVER_COMPILED}). */
    static final String SETUP_MARK = "deja_setup";

    /**
     * The code the engine never compiles, as {@code engine.CompileOnly} exclusions (each matches any function whose
     * name contains it): the deja module's set-up functions, named for this (see the top of deja.py), and module
     * bodies, the script's included. Each runs once or a few times per check, so over the checks of one process
     * their calls reached the threshold one after the other, and each compilation then took 30-1,000 ms of JIT CPU
     * in the middle of some later check: in a loop of 40 store checks, checks 10-18 and 28-34 took 0.22-0.36 s
     * against 0.16-0.20 s for the others. A module body's loops run interpreted, which only a script that computes
     * a lot at its top level would notice.
     */
    static final String NEVER_COMPILED = "~" + SETUP_MARK + ",~<module>";

    private static Engine engine;
    // The engine of checks run interpreted on purpose in a JVM that has the JIT (see forThisCheck); null until one ran.
    private static Engine interpretedEngine;
    private static boolean warned;

    private PythonEngine() {
    }

    /** The shared engine, created on first use. */
    public static synchronized Engine get() {
        if (engine == null) {
            keepGraalCompilerOutOfC2();
            try {
                // Compile sooner and with less effort: a check is short and its predicates small, so warming up
                // matters more than peak speed (a 57,813-event Paxos check, 2nd to 4th in one process:
                // 9.7, 3.6, 2.4 s in the default mode, 5.1, 2.0, 1.6 s in this one).
                Engine.Builder builder = builder().option("engine.Mode", "latency");
                // Compile only code that runs per event, not the set-up a check runs once or a few times (declaring
                // tables, installing the deja module, putting builtins back). Truffle compiles a function once its
                // calls and loop iterations reach a threshold; summed over the checks of one process, set-up code
                // kept reaching it, so later checks still compiled a few functions each, at 30-700 ms of JIT CPU
                // apiece. A minimum of calls keeps set-up code interpreted for a process's first dozens of checks,
                // while per-event code reaches it within a check's first events. (Benchmark check section, two runs
                // each, checked / plain replay: Paxos 2.62-2.63x with a minimum of 30, 3.07-3.13x without;
                // randtree 2.44-2.54x against 2.80-3.16x; the others within the noise. A minimum of 200 with fixed
                // thresholds saved more compilations but made a one-shot check of that Paxos trace in a new JVM
                // take 16.0-16.8 s instead of 14.1-15.0 s; with 30, 15.3 s.)
                builder.allowExperimentalOptions(true)
                        .option("engine.MinInvokeThreshold", Integer.toString(MIN_CALLS_BEFORE_COMPILING))
                        .option("engine.FirstTierMinInvokeThreshold", Integer.toString(MIN_CALLS_BEFORE_COMPILING))
                        .option("engine.CompileOnly", NEVER_COMPILED);
                engine = builder.build();
            } catch (IllegalArgumentException e) {
                // An engine without the JIT compiler has no compilation modes; it only interprets.
                engine = builder().build();
            }
        }
        return engine;
    }

    /**
     * The engine for a check that starts now: {@link #get()}, unless the check runs interpreted on purpose
     * ({@link #interpretedOnPurpose()}) in a JVM that has the JIT, such as the warm engine of {@code deja daemon}.
     * Then it is a second engine of this process that never compiles.
     *
     * <p>Why a second engine: compiled predicates pay off only after a script text has been checked a few times, and
     * the JIT compiles the code of every new text again (an edit makes a new text). In a JVM that had checked Paxos
     * three times, the first full check of chord's 3,000-step trace took 4.7-5.9 s with the JIT and 2.5-4.9 s without
     * it, the lock server's 2.5-2.8 s against 1.0-1.1 s, the store's 4.1-4.2 s against 1.3-1.8 s (the JIT's
     * compilations, 0.5-2.5 s of CPU each, share the two cores with the check); a check whose predicates turn out heavy
     * starts again on {@link #get()} (see the command line's JitRestart).
     */
    public static synchronized Engine forThisCheck() {
        return interpretedOnPurpose().isPresent() ? interpreted() : get();
    }

    /** The engine that never compiles: {@link #get()} itself in a JVM without the JIT, else a second one. */
    public static synchronized Engine interpreted() {
        if (!jit()) {
            return get();
        }
        if (interpretedEngine == null) {
            interpretedEngine = builder().allowExperimentalOptions(true).option("engine.Compilation", "false").build();
        }
        return interpretedEngine;
    }

    /**
     * Leaves the Graal compiler's classes to C1 (a HotSpot compiler directive, added once per process).
     *
     * <p>Without libgraal the Graal compiler that compiles the predicates is ordinary Java code, which C2 compiles
     * as it gets hot. Every new Truffle compilation made C2 compile more of it, long after the checks themselves
     * were compiled: in a loop of store checks, C2 still spent 165-265 ms of CPU on each of checks 11 to 20 (JFR:
     * mostly Graal methods, single on-stack-replacement compilations of up to 1.8 s), on two cores against about
     * 300 ms for the check's own threads. With the directive C2 took 85-95 ms per check and the checks 0.28-0.36 s
     * instead of 0.40 s; benchmark check sections, two side by side: later-round checks of Paxos 0.18-0.19 s
     * instead of 0.26-0.30 s, of the store 0.20-0.21 s instead of 0.24-0.27 s, the others the same, the first
     * check no slower.
     *
     * <p>Added through the diagnostic command {@code Compiler.directives_add} rather than a JVM flag, which would
     * print a line to standard output at every start. Only a speed-up: where the command or a temporary file is
     * unavailable, checks run as before.
     */
    private static void keepGraalCompilerOutOfC2() {
        try {
            Path directives = Files.createTempFile("deja-jit-directives", ".json");
            try {
                Files.writeString(directives, GRAAL_COMPILER_DIRECTIVE);
                ManagementFactory.getPlatformMBeanServer().invoke(
                        new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesAdd",
                        new Object[] {new String[] {directives.toString()}}, new String[] {String[].class.getName()});
            } finally {
                Files.deleteIfExists(directives);
            }
        } catch (IOException | JMException | RuntimeException e) {
            // Checks run as before, only without the speed-up.
        }
    }

    private static Engine.Builder builder() {
        return Engine.newBuilder("python")
                .option("engine.WarnInterpreterOnly", "false")
                .out(OutputStream.nullOutputStream())
                .err(OutputStream.nullOutputStream());
    }

    /**
     * Starts making a context of {@link #forThisCheck()}'s engine for the next check on a thread of its own (see
     * {@link ReusableContext#startInBackground}).
     */
    public static void startContextInBackground() {
        ReusableContext.startInBackground(forThisCheck());
    }

    /** Whether runtime compilation is available ({@code "Interpreted"} is the name of the JIT-less engine). */
    public static boolean jit() {
        return !"Interpreted".equals(get().getImplementationName());
    }

    /**
     * The system property by which a check is run interpreted on purpose; its value says why, and no warning is
     * printed. The launcher sets it for a one-shot check, which runs from an AOT cache in a JVM without the JIT; the warm
     * engine sets it while it runs a check, which then takes its contexts from {@link #interpreted()}.
     */
    public static final String INTERPRETED_ON_PURPOSE = "deja.python.interpreted";

    /** Why a check that starts now runs interpreted on purpose, if it does (see {@link #INTERPRETED_ON_PURPOSE}). */
    public static java.util.Optional<String> interpretedOnPurpose() {
        return java.util.Optional.ofNullable(System.getProperty(INTERPRETED_ON_PURPOSE)).filter(why -> !why.isBlank());
    }

    /**
     * Prints, once per process, a one-line warning to {@code err} if the engine runs without the JIT, unless the
     * launcher left it out on purpose.
     */
    public static synchronized void warnIfInterpreted(PrintStream err) {
        if (!warned && interpretedOnPurpose().isEmpty() && !jit()) {
            warned = true;
            err.println("deja: warning: Python predicates run interpreted (about 20x slower): this JVM has no Graal "
                    + "JIT compiler (needs -XX:+EnableJVMCI and the compiler jars of the JDK's exact version on "
                    + "--upgrade-module-path; the deja launcher adds them when the build copied them)");
        }
    }
}
