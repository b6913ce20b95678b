package dev.deja.check.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.EnvironmentAccess;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.PolyglotAccess;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.io.IOAccess;

/**
 * A sandboxed GraalPy context with the deja module's installer, which a later check of the same process may
 * take over instead of paying for a new context (tens to hundreds of milliseconds, more than checking a few
 * thousand events).
 *
 * <p>Contract: {@link #acquire} hands out a context no one else holds; {@link #install} gives it a deja module
 * in its initial state and an empty main module for the script, after taking away what an earlier script left
 * behind (its module, the modules it imported, the deja attributes and builtins it set or replaced, and every
 * table, predicate and event the deja module recorded). Only a context whose check ended cleanly is
 * given back ({@link #release} with {@code reusable}); one that was interrupted by the watchdog, hit an engine
 * error or failed to load a script is closed. At most {@link #MAX_IDLE} idle contexts are kept.
 */
final class ReusableContext {
    /** The deja module, evaluated as the main module only to hand its compiled code to the installer. */
    private static final Source DEJA_SOURCE = Source.newBuilder("python", moduleSource(), "deja.py").buildLiteral();

    /**
     * Makes the installer: it remembers the deja module's code and what the interpreter held before any script
     * ran, and each call puts that state back and hands out the module {@code deja}: created by the first call,
     * then emptied by {@code _deja_setup_reset()} with any attribute a script set or replaced put back, so that it
     * is the same module, with the same classes, for every check (which keeps the compiled code valid).
     */
    private static final Source INSTALLER_SOURCE = Source.newBuilder("python", """
            def deja_setup_installer():
                # Imported here, not at module level: the main module's names are removed below.
                import sys, types, builtins
                # The checker owns the process, not the script: what would install signal handlers, start a timer
                # thread, end or signal the process, or tell its pid is replaced before any script runs, in the
                # built-in modules themselves (importing them again gives the same module objects), and stays replaced
                # for every check of the context (they are in the baseline below). Only the built-in modules, which
                # the interpreter has loaded already: os and signal take their functions from them when a script
                # imports them ("from posix import *", calls through _signal), and importing those two here cost
                # every new context about half a second.
                import posix, _signal
                def deja_setup_refuse(what):
                    def refused(*args, **kwargs):
                        raise PermissionError(what + " is not available to checker scripts")
                    refused.__name__ = what.rpartition(".")[2]
                    return refused
                def deja_setup_fake_pid():
                    return 1
                for module in (_signal,):
                    for name in ("signal", "alarm", "setitimer", "set_wakeup_fd", "raise_signal", "pthread_kill",
                                 "pthread_sigmask", "siginterrupt", "sigwait", "sigwaitinfo", "sigtimedwait", "pause"):
                        if hasattr(module, name):
                            setattr(module, name, deja_setup_refuse("signal." + name))
                for module in (posix,):
                    for name in ("_exit", "abort", "kill", "killpg", "fork", "forkpty", "setsid", "setpgrp", "nice"):
                        if hasattr(module, name):
                            setattr(module, name, deja_setup_refuse("os." + name))
                    for name in ("getpid", "getppid"):
                        if hasattr(module, name):
                            setattr(module, name, deja_setup_fake_pid)
                try:
                    import faulthandler
                    for name in ("enable", "register", "dump_traceback_later"):
                        if hasattr(faulthandler, name):
                            setattr(faulthandler, name, deja_setup_refuse("faulthandler." + name))
                except ImportError:
                    pass
                main = sys.modules["__main__"]
                code = main.__deja_code__
                keep = ("__name__", "__builtins__", "__doc__", "__spec__", "__loader__", "__package__")
                baseline_modules = set(sys.modules)
                baseline_builtins = dict(vars(builtins))
                deja = []
                # Named so that the engine leaves them to the interpreter (see the top of deja.py). They run at every
                # check over every module, built-in and name of the deja module, so the built-ins do the iterating:
                # the installer took 7.6-9.3 ms per check with interpreted loops, a median of 3.7-4.2 ms so.
                def deja_setup_added(names, baseline):
                    # A list, so that the caller may delete them from what it iterated.
                    return [*(names.keys() - baseline)]
                def deja_setup_restore(target, baseline):
                    # Through setattr and delattr, which the interpreter's caches observe, and only for what a
                    # script changed, so that compiled code relying on the rest stays valid.
                    namespace = vars(target)
                    for name in deja_setup_added(namespace, baseline):
                        delattr(target, name)
                    # Identities compared as lists of ids, in one comparison: a name at a time only if one differs.
                    names = [*baseline]
                    now = [*map(id, map(namespace.get, names))]
                    before = [*map(id, baseline.values())]
                    if now != before:
                        for k in range(len(names)):
                            if now[k] != before[k]:
                                setattr(target, names[k], baseline[names[k]])
                def deja_setup_install():
                    for name in deja_setup_added(sys.modules, baseline_modules):
                        del sys.modules[name]
                    deja_setup_restore(builtins, baseline_builtins)
                    for name in deja_setup_added(vars(main), keep):
                        delattr(main, name)
                    if not deja:
                        m = types.ModuleType("deja")
                        m.__file__ = "deja.py"
                        exec(code, m.__dict__)
                        deja.append((m, dict(vars(m))))
                    else:
                        m, baseline = deja[0]
                        deja_setup_restore(m, baseline)
                        m._deja_setup_reset()
                    sys.modules["deja"] = m
                    return m
                return deja_setup_install
            deja_setup_installer
            """, "deja-install.py").buildLiteral();

    /** A function flushing the output streams of the {@code sys} module as it is when called. */
    private static final Source FLUSHER_SOURCE = Source.newBuilder("python",
            "(lambda sys: (lambda: (sys.stdout.flush(), sys.stderr.flush(), None)[2]))(__import__('sys'))",
            "deja-flush.py").buildLiteral();

    /**
     * Idle contexts kept for later checks: one per core, so that the workers of an exploration, one context each,
     * all find one in the next exploration of a long-lived process.
     */
    private static final int MAX_IDLE = Math.max(1, Runtime.getRuntime().availableProcessors());
    // Per engine (a JVM with the JIT may have two, see PythonEngine.forThisCheck); guarded by ReusableContext.class.
    private static final java.util.Map<Engine, java.util.ArrayDeque<ReusableContext>> idle = new java.util.HashMap<>();
    private static long created;

    final Context context;
    private final Engine engine;
    private final Value installer;
    // Flushes Python's sys.stdout and sys.stderr; an expression, so that it binds no name in the main module.
    private final Value flusher;
    private final SwitchableOutput output;

    private ReusableContext(Engine engine) {
        synchronized (ReusableContext.class) {
            created++;
        }
        this.engine = engine;
        this.output = new SwitchableOutput();
        this.context = Context.newBuilder("python")
                .engine(engine)
                .allowHostAccess(HostAccess.EXPLICIT)
                .allowHostClassLookup(name -> false)
                .allowIO(IOAccess.NONE)
                .allowCreateThread(false)
                .allowCreateProcess(false)
                .allowNativeAccess(false)
                .allowEnvironmentAccess(EnvironmentAccess.NONE)
                .allowPolyglotAccess(PolyglotAccess.NONE)
                .out(output)
                .err(output)
                .build();
        boolean ok = false;
        try {
            // Evaluated from Sources, never through Python's compile(): the engine shares code parsed from an equal
            // Source between contexts, so every check of the process runs the deja module's JIT-compiled code.
            context.eval(DEJA_SOURCE);
            this.installer = context.eval(INSTALLER_SOURCE).execute();
            this.flusher = context.eval(FLUSHER_SOURCE);
            ok = true;
        } finally {
            if (!ok) {
                context.close(true);
            }
        }
    }

    /** The context {@link #startInBackground} is making, until {@link #acquire} takes it; null if none. */
    private static java.util.concurrent.CompletableFuture<ReusableContext> starting;
    /** The engine of {@link #starting}'s context. */
    private static Engine startingEngine;

    /**
     * Starts making a context of {@code engine} on a thread of its own, unless one of it is idle or one is being made,
     * so that a later {@link #acquire} finds it ready or waits only for the rest: a one-shot check does its other
     * preparations (the history, the trace, the command line) meanwhile, on the other core. The thread is a daemon: a
     * process that ends without checking does not wait for it.
     */
    static void startInBackground(Engine engine) {
        java.util.concurrent.CompletableFuture<ReusableContext> future = new java.util.concurrent.CompletableFuture<>();
        synchronized (ReusableContext.class) {
            if (!idle(engine).isEmpty() || starting != null) {
                return;
            }
            starting = future;
            startingEngine = engine;
        }
        Thread thread = new Thread(() -> {
            try {
                future.complete(new ReusableContext(engine));
            } catch (Throwable e) {
                future.completeExceptionally(e);
            }
        }, "deja-python-start");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * An idle context of {@code engine} if there is one, else the one being started for it, else a new one; its script
     * output goes to {@code scriptOutput}.
     */
    static ReusableContext acquire(Engine engine, OutputStream scriptOutput) {
        ReusableContext taken;
        java.util.concurrent.CompletableFuture<ReusableContext> pending = null;
        synchronized (ReusableContext.class) {
            taken = idle(engine).pollFirst();
            if (taken == null && startingEngine == engine) {
                pending = starting;
                starting = null;
                startingEngine = null;
            }
        }
        if (pending != null) {
            try {
                taken = pending.join();
            } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
                // Made again below, on this thread, so that the failure is this check's, as without the background.
                taken = null;
            }
        }
        if (taken == null) {
            taken = new ReusableContext(engine);
        }
        taken.output.target = Objects.requireNonNull(scriptOutput, "scriptOutput");
        return taken;
    }

    /** The idle contexts of {@code engine}; the caller holds the class's lock. */
    private static java.util.ArrayDeque<ReusableContext> idle(Engine engine) {
        return idle.computeIfAbsent(engine, ignored -> new java.util.ArrayDeque<>());
    }

    /** How many contexts this process created (for tests). */
    static synchronized long created() {
        return created;
    }

    /** Writes out what Python buffered of the script's output. */
    void flushOutput() {
        flusher.execute();
    }

    /** The deja module in its initial state, with the main module emptied for the script. */
    Value install() {
        return installer.execute();
    }

    /** Ends this holder's use: keeps the context for the next check if {@code reusable} and fewer than the most are kept. */
    void release(boolean reusable) {
        output.target = OutputStream.nullOutputStream();
        if (reusable) {
            synchronized (ReusableContext.class) {
                java.util.ArrayDeque<ReusableContext> kept = idle(engine);
                if (kept.size() < MAX_IDLE) {
                    kept.addFirst(this);
                    return;
                }
            }
        }
        context.close(true);
    }

    private static String moduleSource() {
        try (InputStream in = ReusableContext.class.getResourceAsStream("/dev/deja/check/deja.py")) {
            if (in == null) {
                throw new IllegalStateException("the deja Python module is missing from the checker jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the deja Python module: " + e.getMessage(), e);
        }
    }

    /** The context's standard output and error, pointed at the current holder's script output. */
    private static final class SwitchableOutput extends OutputStream {
        volatile OutputStream target = OutputStream.nullOutputStream();

        @Override
        public void write(int b) throws IOException {
            target.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            target.write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
            target.flush();
        }
    }
}
