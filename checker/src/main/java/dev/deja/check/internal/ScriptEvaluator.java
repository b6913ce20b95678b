package dev.deja.check.internal;

import dev.deja.check.CheckedEvent;
import dev.deja.check.RowChange;
import dev.deja.check.ScriptException;
import dev.deja.check.StateStep;
import dev.deja.check.TableSchema;
import dev.deja.check.Violation;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;

/**
 * Runs one predicate script in a sandboxed GraalPy context and evaluates it step by step.
 *
 * <p>The context has no file, network, process, environment, thread, native or host-class access: the
 * script sees only the {@code deja} module and Python's own pure modules. The Java side hands Python a run of
 * steps in one call ({@code _steps}), each step's facts and row changes flattened into plain values; Python applies
 * them to Python-native mirrors ({@code deja.Table}) and evaluates step by step, returning at the first step with
 * findings. A call into Python costs more than most steps' evaluation (on the store's trace, one call per step took
 * a third to a half more of the evaluating thread's CPU than one per batch of 128). Python reads no host object on
 * this path but the {@link Progress} it reports each step to. A watchdog thread interrupts an evaluation that runs
 * longer than the predicate timeout ({@link Context#interrupt}), which leaves the context usable: the predicate that was
 * running is reported as {@link Finding.Status#TIMEOUT} and evaluation resumes with the next one.
 *
 * <p>The context comes from {@link ReusableContext}: after a check that ended cleanly, the next check of the
 * process takes it over with the deja module reset instead of paying for a new context.
 *
 * <p>Not thread-safe: one thread calls {@link #evaluate}; only the watchdog touches the context otherwise.
 */
public final class ScriptEvaluator implements AutoCloseable {
    /**
     * One finding of one evaluation.
     *
     * @param witness for TURNED_FALSE, the item that appeared among those violating the predicate, normalized like
     *                row values (a row as {@code "Table[node:oid]"}); null for a predicate that returned a truth value
     * @param serial  names the witness's finding to {@link #aux(String, long)} and {@link #latestAux(String, long)}
     *                (TURNED_FALSE: the new one; TURNED_TRUE: the one that ended); 0 for errors and timeouts
     */
    public record Finding(String predicate, Violation.Kind kind, Status status, String message, Object witness,
                          long serial) {
        /** What happened to the predicate at this step. */
        public enum Status { TURNED_FALSE, TURNED_TRUE, ERROR, TIMEOUT }

        /** A finding without a witness. */
        public Finding(String predicate, Violation.Kind kind, Status status, String message) {
            this(predicate, kind, status, message, null, 0);
        }
    }

    private final ReusableContext pooled;
    private final Context context;
    // False once anything happened after which the context should not serve another check (see ReusableContext).
    private boolean reusable = true;
    private final List<TableSchema> schemas;
    private final List<String> predicateNames = new ArrayList<>();
    private final List<Violation.Kind> predicateKinds = new ArrayList<>();
    private final Map<String, Integer> tableIndex = new HashMap<>();
    private final Value stepsFunction;
    private final Value resumeFunction;
    private final Value evaluate;
    private final Value timedOut;
    private final Value aux;
    private final Value latestAux;
    private final Value counts;
    private final Value reads;
    private final Value deaths;
    private final Value makeTuple;
    private final Value makeDict;
    private final Value makeList;
    private final Value makeSet;
    private final Value makeFrozenset;
    private final Value intern;
    private final Value newRun;
    private final Value globalNames;
    private final Value activate;
    private final Value record;
    private final Value recorded;
    private final Value serve;
    private final Value readsBack;
    private final Value literals;
    private final Value unset;
    private final Value commitServed;
    private final Value keeps;
    private final Value probe;
    private final Value probeRestore;
    private final Value unboundDerived;
    // The script's global names, once asked for (globalNames).
    private List<GlobalName> globals;
    // The served derived values' changes read back by readBack, by name, until commitServed serves them; then by
    // position, each as {index in the registry, value (or unset: unchanged), what it read (or null: unchanged)}.
    private final Map<String, List<Object[]>> stagedServed = new HashMap<>();
    private final Map<Long, List<Object[]>> served = new HashMap<>();
    private final Progress progress = new Progress();
    // The steps Python holds from the last call (the same list object), the index in it of their first, and of the
    // step after the one that call stopped at: a call for that one goes on in Python without handing them over again.
    private List<StateStep> heldSteps;
    private int heldFrom;
    private int heldNext;
    private long handOvers;
    private long stepsHanded;
    // The index of each string in the Python side's symbol list; new ones are sent before the step that uses them.
    private final Map<String, Integer> symbols = new HashMap<>();
    private final List<String> newSymbols = new ArrayList<>();
    private final long timeoutNanos;
    private final Thread watchdog;

    /**
     * The least time a script's loading (its module-level code) gets before it is stopped: the predicate timeout, if
     * longer. A tight predicate timeout must not stop a script that imports a few modules on a busy machine.
     */
    static final Duration LOAD_TIMEOUT_FLOOR = Duration.ofSeconds(5);

    /** The Sources of the last scripts checked in this process, least recently used first. */
    private static final Map<List<String>, Source> RECENT_SCRIPTS = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<List<String>, Source> eldest) {
            return size() > 8;
        }
    };

    private volatile long deadlineNanos = Long.MAX_VALUE;
    // Held by the watchdog while it decides on and makes an interrupt, and by a guarded call ending.
    private final Object interruptLock = new Object();
    private volatile long callNumber;
    private volatile boolean closed;

    /**
     * Loads {@code text} (named {@code fileName} in messages) and runs its declarations, in a context of the engine
     * {@link PythonEngine#forThisCheck()} gives.
     *
     * @throws ScriptException for a syntax error, an error while declaring, or no predicate at all
     */
    public ScriptEvaluator(String text, String fileName, Duration predicateTimeout, OutputStream scriptOutput) {
        this(PythonEngine.forThisCheck(), text, fileName, predicateTimeout, scriptOutput);
    }

    /**
     * Loads {@code text} as {@link #ScriptEvaluator(String, String, Duration, OutputStream)} does, in a context of
     * {@code engine} (one of {@link PythonEngine}'s).
     */
    public ScriptEvaluator(org.graalvm.polyglot.Engine engine, String text, String fileName, Duration predicateTimeout,
                           OutputStream scriptOutput) {
        this.timeoutNanos = predicateTimeout.toNanos();
        this.pooled = ReusableContext.acquire(engine, scriptOutput);
        this.context = pooled.context;
        watchdog = Thread.ofPlatform().daemon().name("deja-predicate-watchdog").unstarted(this::watch);
        boolean ok = false;
        try {
            Value module = pooled.install();
            module.getMember("_deja_setup_script_file").execute(fileName);
            watchdog.start();
            long loadNanos = Math.max(timeoutNanos, LOAD_TIMEOUT_FLOOR.toNanos());
            try {
                // Evaluated, not parsed and then called: only what is evaluated is shared between contexts.
                watched(loadNanos, () -> context.eval(scriptSource(text, fileName)));
            } catch (PolyglotException e) {
                if (e.isSyntaxError()) {
                    throw new ScriptException(syntaxError(e, fileName));
                }
                if (e.isGuestException() && !e.isExit() && !e.isInterrupted() && !e.isCancelled()
                        && e.getGuestObject() != null) {
                    // The exception's own traceback has the exact lines, which the host stack trace lacks.
                    throw new ScriptException(module.getMember("_format_error").execute(e.getGuestObject()).asString());
                }
                if (e.isExit()) {
                    throw new ScriptException(fileName + ": the script exited while loading (exit status " + e.getExitStatus()
                            + "); checker scripts cannot exit");
                }
                if (e.isInterrupted()) {
                    throw new ScriptException(fileName + ": loading the script did not end within "
                            + Duration.ofNanos(loadNanos).toMillis() + " ms, so it was stopped: its module-level code gets"
                            + " the predicate timeout, and at least " + LOAD_TIMEOUT_FLOOR.toSeconds() + " s");
                }
                throw e;
            }
            Value error = module.getMember("_deja_setup_check_declared").execute();
            if (!error.isNull()) {
                throw new ScriptException(error.asString());
            }
            stepsFunction = module.getMember("_steps");
            resumeFunction = module.getMember("_resume");
            evaluate = module.getMember("_evaluate");
            timedOut = module.getMember("_abandoned");
            aux = module.getMember("_aux");
            latestAux = module.getMember("_latest_aux");
            counts = module.getMember("_deja_setup_counts");
            reads = module.getMember("_deja_setup_reads");
            deaths = module.getMember("_deja_setup_deaths");
            makeTuple = module.getMember("_make_tuple");
            makeDict = module.getMember("_make_dict");
            makeList = module.getMember("_make_list");
            makeSet = module.getMember("_make_set");
            makeFrozenset = module.getMember("_make_frozenset");
            intern = module.getMember("_deja_setup_intern");
            newRun = module.getMember("_deja_new_run");
            globalNames = module.getMember("_deja_setup_globals");
            activate = module.getMember("_deja_setup_activate");
            record = module.getMember("_deja_setup_record");
            recorded = module.getMember("_deja_setup_recorded");
            serve = module.getMember("_deja_setup_serve");
            readsBack = module.getMember("_deja_setup_reads_back");
            literals = module.getMember("_deja_setup_literals");
            unset = module.getMember("_UNSET");
            commitServed = module.getMember("_deja_setup_commit_served");
            keeps = module.getMember("_deja_setup_keeps");
            probe = module.getMember("_deja_setup_probe");
            probeRestore = module.getMember("_deja_setup_probe_restore");
            unboundDerived = module.getMember("_deja_setup_unbound_derived");
            List<TableSchema> declared = new ArrayList<>();
            Value tables = module.getMember("_deja_setup_tables").execute();
            for (long i = 0; i < tables.getArraySize(); i++) {
                Value t = tables.getArrayElement(i);
                List<String> columns = new ArrayList<>();
                Value cs = t.getArrayElement(2);
                for (long c = 0; c < cs.getArraySize(); c++) {
                    columns.add(cs.getArrayElement(c).asString());
                }
                TableSchema schema = new TableSchema(t.getArrayElement(0).asString(), t.getArrayElement(1).asString(), columns);
                tableIndex.put(schema.name(), declared.size());
                declared.add(schema);
            }
            this.schemas = List.copyOf(declared);
            module.getMember("_deja_setup_install").execute(module.getMember("_registry").getMember("tables"));
            Value predicates = module.getMember("_deja_setup_predicates").execute();
            for (long i = 0; i < predicates.getArraySize(); i++) {
                Value p = predicates.getArrayElement(i);
                predicateNames.add(p.getArrayElement(0).asString());
                predicateKinds.add("eventually".equals(p.getArrayElement(1).asString())
                        ? Violation.Kind.EVENTUALLY : Violation.Kind.ALWAYS);
            }
            ok = true;
        } catch (PolyglotException e) {
            throw new ScriptException(fileName + ": " + e.getMessage());
        } finally {
            if (!ok) {
                stopWatchdog();
                pooled.release(false);
            }
        }
    }

    /**
     * The Source of a script, the same object for the same file name and text: the engine keeps the code parsed
     * from a Source only as long as the Source object lives, so the last few are held here for re-checks.
     */
    private static Source scriptSource(String text, String fileName) {
        synchronized (RECENT_SCRIPTS) {
            return RECENT_SCRIPTS.computeIfAbsent(List.of(fileName, text),
                    key -> Source.newBuilder("python", text, fileName).buildLiteral());
        }
    }

    /** "file:line:column: SyntaxError: message" for a script that does not parse. */
    private static String syntaxError(PolyglotException e, String fileName) {
        String where = fileName;
        if (e.getSourceLocation() != null) {
            where += ":" + e.getSourceLocation().getStartLine();
            if (e.getSourceLocation().hasColumns()) {
                where += ":" + e.getSourceLocation().getStartColumn();
            }
        }
        // GraalPy ends the message with "(file, line N)", which the prefix already says.
        String message = firstLine(e.getMessage()).replaceFirst(" \\([^()]*, line \\d+\\)$", "");
        return where + ": " + (message.startsWith("SyntaxError") || message.contains("Error:") ? message : "SyntaxError: " + message);
    }

    /** The tables the script declared, in declaration order. */
    public List<TableSchema> schemas() {
        return schemas;
    }

    /** The predicates' names, in declaration order. */
    public List<String> predicateNames() {
        return List.copyOf(predicateNames);
    }

    /** The kind of each predicate, by name. */
    public Violation.Kind kindOf(String predicate) {
        int i = predicateNames.indexOf(predicate);
        return i < 0 ? Violation.Kind.ALWAYS : predicateKinds.get(i);
    }

    /** How many steps were handed to Python so far. */
    public long stepsHanded() {
        return stepsHanded;
    }

    /** How many times steps were handed over to Python (for tests). */
    long handOvers() {
        return handOvers;
    }

    /** How many times each predicate and derived value was evaluated so far. */
    public Map<String, Long> evaluationCounts() {
        Map<String, Long> out = new LinkedHashMap<>();
        if (fromPython(counts.execute()) instanceof Map<?, ?> all) {
            all.forEach((k, v) -> out.put(String.valueOf(k), (Long) v));
        }
        return out;
    }

    /**
     * What each predicate read at its last evaluation, directly or through derived values: table names, derived
     * values' names and the built-ins {@code nodes}, {@code event}, {@code clock}, sorted.
     */
    public Map<String, List<String>> reads() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (fromPython(reads.execute(-1)) instanceof Map<?, ?> all) {
            all.forEach((k, v) -> out.put(String.valueOf(k), ((List<?>) v).stream().map(String::valueOf).toList()));
        }
        return out;
    }

    /** What {@code predicate} read at its last evaluation (see {@link #reads()}). */
    public List<String> reads(String predicate) {
        int index = predicateNames.indexOf(predicate);
        if (index < 0) {
            return List.of();
        }
        Object names = fromPython(reads.execute(index));
        return names instanceof List<?> list ? list.stream().map(String::valueOf).toList() : List.of();
    }

    /**
     * One global name of the script: what it is ({@code table}, {@code derived}, {@code predicate}, {@code builtin},
     * {@code mutable} or {@code other}) and, for a table, derived value or predicate, the name it was declared with.
     */
    public record GlobalName(String name, String what, String declared) {
    }

    /**
     * The script's global names after it ran, in definition order (see {@code _deja_setup_globals}): taken once, at
     * the first call, which the checker makes before any step (the fingerprints, the outline and the re-check's plan
     * all need them).
     */
    public List<GlobalName> globalNames() {
        if (globals == null) {
            globals = List.copyOf(readGlobalNames());
        }
        return globals;
    }

    private List<GlobalName> readGlobalNames() {
        List<GlobalName> out = new ArrayList<>();
        Value all = globalNames.execute();
        for (long i = 0; i < all.getArraySize(); i++) {
            Value g = all.getArrayElement(i);
            Value declared = g.getArrayElement(2);
            out.add(new GlobalName(g.getArrayElement(0).asString(), g.getArrayElement(1).asString(),
                    declared.isNull() ? null : declared.asString()));
        }
        return out;
    }

    /**
     * Evaluates only {@code predicates} from now on, and refreshes only {@code derived} after each step: the other
     * predicates are never evaluated (their results come from elsewhere). Call before the first step.
     */
    public void activate(java.util.Collection<String> predicates, java.util.Collection<String> derived) {
        List<Object> indexes = new ArrayList<>();
        for (String name : predicates) {
            int index = predicateNames.indexOf(name);
            if (index >= 0) {
                indexes.add(index);
            }
        }
        activate.execute(makeTuple.execute(indexes.toArray()), makeTuple.execute(derived.toArray()));
    }

    /**
     * From now on, every derived value notes the events at which its value or what it read changed, which
     * {@link #recordedDerived()} gives. Call before the first step.
     */
    public void recordDerived() {
        record.execute(true);
    }

    /**
     * What one derived value recorded (see {@link #recordDerived()}).
     *
     * @param unstorable why its values cannot be stored (it raised, or a value has no literal form), or null
     */
    public record RecordedDerived(String name, String unstorable, List<dev.deja.check.DerivedValues.Change> changes) {
    }

    /** What every derived value recorded since {@link #recordDerived()}, in declaration order. */
    public List<RecordedDerived> recordedDerived() {
        List<RecordedDerived> out = new ArrayList<>();
        Value all = recorded.execute();
        for (long i = 0; i < all.getArraySize(); i++) {
            Value d = all.getArrayElement(i);
            Value unstorable = d.getArrayElement(1);
            List<dev.deja.check.DerivedValues.Change> changes = new ArrayList<>();
            if (unstorable.isNull()) {
                Value positions = d.getArrayElement(2);
                Value values = d.getArrayElement(3);
                Value reads = d.getArrayElement(4);
                for (long c = 0; c < positions.getArraySize(); c++) {
                    Value value = values.getArrayElement(c);
                    Value names = reads.getArrayElement(c);
                    List<String> read = null;
                    if (!names.isNull()) {
                        read = new ArrayList<>();
                        for (long n = 0; n < names.getArraySize(); n++) {
                            read.add(names.getArrayElement(n).asString());
                        }
                    }
                    changes.add(new dev.deja.check.DerivedValues.Change(positions.getArrayElement(c).asLong(),
                            value.isNull() ? null : value.asString(), read));
                }
            }
            out.add(new RecordedDerived(d.getArrayElement(0).asString(), unstorable.isNull() ? null : unstorable.asString(),
                    changes));
        }
        return out;
    }

    /**
     * Why the texts of {@code changes} (a derived value's recorded values) cannot be stored for {@link #readBack}, or
     * empty if they can: each is made of literals only ({@link #literal}, checked before Python evaluates anything) and
     * Python reads it back, as {@link #readBack} will, to a value whose {@code repr} is that text. Checked once here,
     * when the full check stores them, so that a re-check that reads them need not compare them again. The checker
     * tells this itself for the texts it reads exactly ({@link ReprText#exactSets}) but for the order of their sets'
     * items, so Python reads back only those sets and the other texts, each distinct one once: a store's objects, 274
     * values of 1,400 characters, cost a cold check more than a second when Python read them all.
     */
    public java.util.Optional<String> unstorable(List<dev.deja.check.DerivedValues.Change> changes) {
        // Each distinct text once; of a text the checker reads exactly, only the sets inside it (ReprText.exactSets).
        java.util.Set<String> toPython = new java.util.LinkedHashSet<>();
        for (dev.deja.check.DerivedValues.Change change : changes) {
            String value = change.value();
            if (value == null) {
                continue;
            }
            if (!literal(value)) {
                return java.util.Optional.of("a value is not a literal: "
                        + (value.length() > 60 ? value.substring(0, 60) + "..." : value));
            }
            List<String> sets = ReprText.exactSets(value);
            if (sets == null) {
                toPython.add(value);
            } else {
                toPython.addAll(sets);
            }
        }
        if (toPython.isEmpty()) {
            return java.util.Optional.empty();
        }
        Value why = readsBack.execute(makeTuple.execute(toPython.toArray()));
        return why.isNull() ? java.util.Optional.empty() : java.util.Optional.of(why.asString());
    }

    /**
     * Reads back the stored {@code changes} of the derived value {@code name}, for {@link #commitServed}; returns why
     * it cannot be served. What a check stored passed {@link #unstorable}, so it reads back exactly; the texts are
     * checked to be literals again all the same (cheap, and nothing else is ever evaluated). Texts of integers,
     * {@code True}, {@code False}, {@code None}, strings without escapes and containers of those become values here
     * ({@link #fromRepr}), so that Python parses only the others: a clock that changes at every event costs no Python
     * at all. A change
     * without a value serves only what the derived value read there.
     */
    public java.util.Optional<String> readBack(String name, List<dev.deja.check.DerivedValues.Change> changes) {
        List<Object> readNames = new ArrayList<>();
        for (dev.deja.check.DerivedValues.Change change : changes) {
            if (change.value() != null && !literal(change.value())) {
                String value = change.value();
                return java.util.Optional.of("a stored value is not a literal: "
                        + (value.length() > 60 ? value.substring(0, 60) + "..." : value));
            }
            if (change.reads() != null) {
                readNames.add(makeTuple.execute(change.reads().toArray()));
            }
        }
        Value prepared = serve.execute(name, makeTuple.execute(readNames.toArray()));
        if (prepared.isString()) {
            return java.util.Optional.of(prepared.asString());
        }
        int index = prepared.getArrayElement(0).asInt();
        Value deps = prepared.getArrayElement(1);
        Object[] read = new Object[changes.size()];
        for (int i = 0; i < read.length; i++) {
            read[i] = changes.get(i).value();
        }
        java.util.Optional<String> why = readTexts(read, unset);
        if (why.isPresent()) {
            return why;
        }
        List<Object[]> staged = new ArrayList<>(read.length);
        int withReads = 0;
        for (int i = 0; i < read.length; i++) {
            dev.deja.check.DerivedValues.Change change = changes.get(i);
            staged.add(new Object[] {change.position(), index, read[i],
                    change.reads() == null ? null : deps.getArrayElement(withReads++)});
        }
        stagedServed.put(name, staged);
        return java.util.Optional.empty();
    }

    /**
     * Replaces each stored text in {@code texts} with the value it reads back to ({@link #fromRepr}, else Python's own
     * reading, for all such texts in one call), and each null with {@code none}; returns why they cannot be read.
     */
    private java.util.Optional<String> readTexts(Object[] texts, Object none) {
        List<Integer> unread = new ArrayList<>();
        List<String> left = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            String text = (String) texts[i];
            Object value = text == null ? none : fromRepr(text);
            if (value == NOT_SCALAR) {
                unread.add(i);
                left.add(text);
            } else {
                texts[i] = value;
            }
        }
        if (!left.isEmpty()) {
            Value parsed = literals.execute(makeTuple.execute(left.toArray()));
            if (parsed.isString()) {
                return java.util.Optional.of(parsed.asString());
            }
            for (int k = 0; k < unread.size(); k++) {
                texts[unread.get(k)] = parsed.getArrayElement(k);
            }
        }
        return java.util.Optional.empty();
    }

    private static final int PROBE_CHUNK_MAX = 4096;

    /**
     * Evaluates {@code predicate} once on each combination of values of the served derived values {@code names}, which
     * must be all it can read: {@code combinations} holds, for each, the stored text of each value in the order of
     * {@code names} (null where the value has none yet: None). Returns each combination's outcome as a number, the same
     * for combinations under which the predicate holds, or is violated with the same witnesses, and -1 where it raised;
     * empty if a text does not read back or the probe was stopped: the re-check then evaluates the predicate wherever
     * what it reads changes. The combinations go to Python in chunks, each under the predicate timeout: a chunk grows
     * (to at most {@value #PROBE_CHUNK_MAX}) while the last one took under a sixteenth of the timeout, so a probe of
     * many combinations is not taken for a loop. Its output is discarded, nothing it
     * reads is linked, and no finding is made; its evaluations are counted. Call before the first step.
     */
    public java.util.Optional<int[]> probe(String predicate, List<String> names, List<List<String>> combinations) {
        int index = predicateNames.indexOf(predicate);
        if (index < 0 || combinations.isEmpty()) {
            return java.util.Optional.empty();
        }
        Object[] derived = new Object[names.size()];
        for (int i = 0; i < derived.length; i++) {
            Value prepared = serve.execute(names.get(i), makeTuple.execute());
            if (prepared.isString()) {
                return java.util.Optional.empty();
            }
            derived[i] = prepared.getArrayElement(0).asInt();
        }
        Object[] values = combinations.stream().flatMap(List::stream).toArray();
        if (readTexts(values, null).isPresent()) {
            return java.util.Optional.empty();
        }
        Value derivedTuple = makeTuple.execute(derived);
        int width = names.size();
        int[] out = new int[combinations.size()];
        try {
            int chunk = 16;
            for (int done = 0; done < out.length; ) {
                int size = Math.min(chunk, out.length - done);
                // The index, the derived values, whether this is the first chunk, then the values of each
                // combination of the chunk in turn.
                Object[] arguments = new Object[3 + width * size];
                arguments[0] = index;
                arguments[1] = derivedTuple;
                arguments[2] = done == 0;
                System.arraycopy(values, done * width, arguments, 3, width * size);
                long started = System.nanoTime();
                Value outcomes = guarded(probe, arguments);
                for (int i = 0; i < size; i++) {
                    out[done + i] = outcomes.getArrayElement(i).asInt();
                }
                done += size;
                if (System.nanoTime() - started < timeoutNanos / 16) {
                    chunk = Math.min(chunk * 2, PROBE_CHUNK_MAX);
                }
            }
            return java.util.Optional.of(out);
        } catch (PolyglotException failure) {
            reusable = false;
            try {
                probeRestore.execute();
            } catch (PolyglotException again) {
                throw new ScriptException("the Python engine failed after a probe of predicate " + predicate + ": "
                        + firstLine(again.getMessage()));
            }
            return java.util.Optional.empty();
        }
    }

    static final Object NOT_SCALAR = new Object();

    /**
     * The value whose {@code repr} is {@code text} when the checker can tell it for certain: a {@link #scalar}, or a
     * list, tuple, dict, set or frozenset of such values (built in Python one container per call); else
     * {@link #NOT_SCALAR}, and Python parses it. The order of items is the text's, as Python's own reading of it has.
     */
    Object fromRepr(String text) {
        Object scalar = scalar(text);
        if (scalar != NOT_SCALAR || text.isEmpty() || "[({sf".indexOf(text.charAt(0)) < 0) {
            return scalar;
        }
        return ReprText.read(text, pythonParts);
    }

    /** Python's {@code repr} of {@code value}, for tests of {@link #fromRepr}. */
    String repr(Object value) {
        return context.eval("python", "repr").execute(value).asString();
    }

    /** Makes the parts {@link ReprText} reads into Python values, one call per container. */
    private final ReprText.Parts pythonParts = new ReprText.Parts() {
        @Override
        public Object scalar(String text) {
            return ScriptEvaluator.scalar(text);
        }

        @Override
        public Object list(List<Object> items) {
            return makeList.execute(items.toArray());
        }

        @Override
        public Object tuple(List<Object> items) {
            return makeTuple.execute(items.toArray());
        }

        @Override
        public Object dict(List<Object> keysAndValues) {
            return makeDict.execute(keysAndValues.toArray());
        }

        @Override
        public Object set(List<Object> items, int start, int end) {
            return makeSet.execute(items.toArray());
        }

        @Override
        public Object frozenset(Object set, int start, int end) {
            // Of the set itself, as Python's reading of the text makes it.
            return set == null ? makeFrozenset.execute() : makeFrozenset.execute(set);
        }
    };

    private static final java.util.regex.Pattern INTEGER = java.util.regex.Pattern.compile("-?(?:0|[1-9][0-9]{0,17})");

    /**
     * The value whose {@code repr} is {@code text} when Java can tell it for certain (an integer of a long's range,
     * {@code True}, {@code False}, {@code None}, a string quoted without escapes), passed to Python as is; else
     * {@link #NOT_SCALAR}, and Python parses it. Floats are left to Python, whose repr this need not match.
     */
    static Object scalar(String text) {
        switch (text) {
            case "None":
                return null;
            case "True":
                return Boolean.TRUE;
            case "False":
                return Boolean.FALSE;
            default:
                break;
        }
        int n = text.length();
        if (n >= 2 && (text.charAt(0) == '\'' || text.charAt(0) == '"') && text.charAt(n - 1) == text.charAt(0)) {
            char quote = text.charAt(0);
            for (int i = 1; i < n - 1; i++) {
                char c = text.charAt(i);
                if (c == '\\' || c == quote) {
                    return NOT_SCALAR;
                }
            }
            return text.substring(1, n - 1);
        }
        return INTEGER.matcher(text).matches() ? (Object) Long.parseLong(text) : NOT_SCALAR;
    }

    /**
     * Whether {@code text} is made of Python literals only: strings, numbers, {@code True}, {@code False}, {@code None},
     * brackets, commas and colons, as {@code repr} writes dicts, lists, tuples and sets of them, and the calls
     * {@code set(...)} and {@code frozenset(...)}, as it writes an empty set and a frozenset. Evaluating such a text can
     * call nothing but those two types, on literals (no other name, no attribute).
     */
    public static boolean literal(String text) {
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '\'' || c == '"') {
                int end = i + 1;
                while (end < n && text.charAt(end) != c) {
                    end += text.charAt(end) == '\\' ? 2 : 1;
                }
                if (end >= n) {
                    return false;
                }
                i = end + 1;
            } else if (Character.isLetter(c) || c == '_') {
                int end = i;
                while (end < n && (Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '_')) {
                    end++;
                }
                String word = text.substring(i, end);
                boolean bytesPrefix = word.equals("b") && end < n && (text.charAt(end) == '\'' || text.charAt(end) == '"');
                // set() and frozenset({...}), as repr writes an empty set and a frozenset: a call of the type itself.
                boolean setCall = (word.equals("set") || word.equals("frozenset")) && end < n && text.charAt(end) == '(';
                if (!bytesPrefix && !setCall && !word.equals("True") && !word.equals("False") && !word.equals("None")) {
                    return false;
                }
                i = end;
            } else if (Character.isDigit(c)) {
                // A number: digits, a point, an exponent (e, e+, e-) and the imaginary j.
                int end = i;
                while (end < n) {
                    char d = text.charAt(end);
                    if (Character.isDigit(d) || d == '.' || d == 'e' || d == 'j'
                            || ((d == '+' || d == '-') && text.charAt(end - 1) == 'e')) {
                        end++;
                    } else {
                        break;
                    }
                }
                i = end;
            } else if ("{}[](),: -+.".indexOf(c) >= 0) {
                i++;
            } else {
                return false;
            }
        }
        return true;
    }

    /**
     * Gives the derived values {@code names}, each read back by {@link #readBack}, their stored changes instead of
     * evaluating them: at each change's event a value and what it read become the stored ones, and its readers are
     * due for evaluation. Call before the first step, and leave them out of {@link #activate}.
     */
    public void commitServed(java.util.Collection<String> names) {
        commitServed.execute(makeTuple.execute(names.toArray()));
        for (String name : names) {
            for (Object[] change : stagedServed.getOrDefault(name, List.of())) {
                served.computeIfAbsent((Long) change[0], position -> new ArrayList<>(1)).add(change);
            }
        }
        stagedServed.clear();
    }

    /**
     * How many derived values have no global name (made inside a helper function) and no listing of their own among
     * {@link #globalNames} either: the checker cannot tell who reads them, and a re-check refreshes them after every
     * step it hands to Python.
     */
    public int unboundDerived() {
        return unboundDerived.execute().asInt();
    }

    /** How many versions each of the derived values {@code names} keeps ({@code keep_versions}); 0 if undeclared. */
    public Map<String, Integer> keepVersions(java.util.Collection<String> names) {
        Value kept = keeps.execute(makeTuple.execute(names.toArray()));
        Map<String, Integer> out = new HashMap<>();
        int i = 0;
        for (String name : names) {
            out.put(name, kept.getArrayElement(i++).asInt());
        }
        return out;
    }

    /**
     * Tells the evaluation which nodes crashed for good: node id to the incarnation and seq of its last event,
     * after which the built-in {@code nodes} table has it not alive. Call before the first step.
     */
    public void nodeDeaths(Map<String, long[]> lastEvents) {
        List<Object> flat = new ArrayList<>();
        lastEvents.forEach((node, last) -> {
            flat.add(node);
            flat.add((int) last[0]);
            flat.add(last[1]);
        });
        deaths.execute(flat.toArray());
    }

    /** Applies {@code step} to the mirrors and evaluates what its changes affect; findings in predicate order. */
    public List<Finding> evaluate(StateStep step) {
        return evaluate(List.of(step), 0).findings();
    }

    /**
     * What {@link #evaluate(List, int)} found: the index of the first step with findings and its findings in
     * predicate order, or the number of steps and none.
     */
    public record Outcome(int index, List<Finding> findings) {
    }

    /**
     * Applies and evaluates {@code steps} from index {@code from} on, in order, in one call into Python, until a step
     * has findings: the state in Python is then that step's, so {@link #aux} and {@link #latestAux} give its aux
     * values, and the caller goes on from the step after it. The predicate timeout applies to each step. Going on
     * in the same list (the same object, unchanged) from the step after the one returned hands Python nothing
     * again: it still holds the steps, so a batch costs one hand-over however many of its steps have findings.
     */
    public Outcome evaluate(List<StateStep> steps, int from) {
        Value function = resumeFunction;
        Object[] arguments = {progress};
        if (steps != heldSteps || from != heldNext) {
            // Not the rest of the steps Python holds: hand these over.
            int size = 1;
            for (int s = from; s < steps.size(); s++) {
                size += 11;
                if (!served.isEmpty()) {
                    size += 3 * served.getOrDefault(steps.get(s).event().position(), List.of()).size();
                }
                for (RowChange rowChange : steps.get(s).changes()) {
                    size += 4 + (rowChange.kind() == RowChange.Kind.DELETE ? 0 : rowChange.values().size());
                }
            }
            arguments = new Object[size];
            arguments[0] = progress;
            int a = 1;
            for (int s = from; s < steps.size(); s++) {
                a = flatten(steps.get(s), arguments, a);
            }
            internNewSymbols();
            function = stepsFunction;
            heldFrom = from;
            handOvers++;
        }
        heldSteps = null; // until the call returns: one that throws leaves nothing to go on with
        progress.startCall(from - heldFrom, steps.size() - heldFrom);
        List<Finding> findings = new ArrayList<>();
        int at;
        try {
            Value returned = guarded(function, arguments);
            if (returned.isNull()) {
                return new Outcome(steps.size(), List.of());
            }
            addFindings(returned.getArrayElement(1), findings);
            at = heldFrom + returned.getArrayElement(0).asInt();
        } catch (PolyglotException failure) {
            at = heldFrom + progress.index;
            recover(failure, findings);
        }
        heldSteps = steps;
        heldNext = at + 1;
        return new Outcome(at, findings);
    }

    /**
     * Writes the facts, row changes and served derived values' changes of {@code step} into {@code arguments} from
     * {@code a}, as {@code _steps} reads them; returns where it ended.
     */
    private int flatten(StateStep step, Object[] arguments, int a) {
        stepsHanded++;
        CheckedEvent e = step.event();
        arguments[a++] = e.position();
        arguments[a++] = symbol(e.node().value());
        arguments[a++] = e.incarnation();
        arguments[a++] = e.seq();
        arguments[a++] = e.lamport();
        arguments[a++] = e.atMillis();
        arguments[a++] = symbol(e.type());
        arguments[a++] = e.messageType().map(this::symbol).orElse(-1);
        arguments[a++] = e.from().map(n -> symbol(n.value())).orElse(-1);
        int width = a++;
        for (RowChange rowChange : step.changes()) {
            Integer table = tableIndex.get(rowChange.table());
            if (table == null) {
                throw new IllegalArgumentException("a step changes table " + rowChange.table()
                        + ", which the script does not declare");
            }
            arguments[a++] = table;
            arguments[a++] = symbol(rowChange.kind().code());
            arguments[a++] = symbol(rowChange.node().value());
            arguments[a++] = rowChange.oid();
            if (rowChange.kind() != RowChange.Kind.DELETE) {
                List<String> columns = schemas.get(table).columns();
                Map<String, Object> values = rowChange.values();
                if (values.size() != columns.size()) {
                    throw new IllegalArgumentException("a change of table " + rowChange.table() + " has "
                            + values.keySet() + ", the script declares " + columns);
                }
                // Extraction and the stored history both list the values in declaration order: read them in order,
                // looking a column up only where the order differs.
                int column = 0;
                for (Map.Entry<String, Object> entry : values.entrySet()) {
                    String name = columns.get(column++);
                    arguments[a++] = toPython(name.equals(entry.getKey()) ? entry.getValue() : values.get(name));
                }
            }
        }
        arguments[width] = a - width - 1;
        List<Object[]> changes = served.isEmpty() ? null : served.get(e.position());
        if (changes == null) {
            arguments[a++] = 0;
        } else {
            arguments[a++] = changes.size();
            for (Object[] change : changes) {
                arguments[a++] = change[1];
                arguments[a++] = change[2];
                arguments[a++] = change[3];
            }
        }
        return a;
    }

    /**
     * After an evaluation was stopped by the watchdog, or failed in a way Python's own handlers do not see (such as a
     * blocked system feature): blames what was running and finishes the step's evaluation with the next predicate.
     */
    private void recover(PolyglotException failure, List<Finding> findings) {
        while (true) {
            if (failure.isExit()) {
                // The script's own exits (sys.exit, os._exit) are findings; this one got past them.
                reusable = false;
                throw new ScriptException("a predicate ended the script's interpreter (" + firstLine(failure.getMessage())
                        + "); checker scripts cannot exit");
            }
            if (!failure.isInterrupted() && !failure.isCancelled() && !failure.isInternalError() && !failure.isHostException()) {
                reusable = false;
                throw failure;
            }
            reusable = false;
            Value abandoned = timedOut.execute();
            if (abandoned.isNull() && progress.distrusted()) {
                throw new ScriptException("a predicate called the checker's progress object (reached through the stack),"
                        + " which only the deja module may call; the check stops, as its timing can no longer be trusted");
            }
            if (abandoned.isNull()) {
                // Stopped in the deja module's own work on an event (applying its row changes), not in the script:
                // the mirrors may be half updated, so no later result could be trusted.
                throw new ScriptException("the predicate timeout (" + Duration.ofNanos(timeoutNanos).toMillis() + " ms) stopped"
                        + " the checker's own work on an event, outside every predicate; give a longer --predicate-timeout");
            }
            String name = abandoned.asString();
            if (!name.isEmpty()) {
                boolean timeout = failure.isInterrupted() || failure.isCancelled();
                findings.add(new Finding(name, kindOf(name), timeout ? Finding.Status.TIMEOUT : Finding.Status.ERROR,
                        timeout ? "took longer than " + Duration.ofNanos(timeoutNanos).toMillis() + " ms; stopped"
                                : firstLine(failure.getMessage())));
            }
            // An empty name: stopped while taking an open span's aux values, which read "<timed out>"; no
            // predicate is to blame.
            try {
                addFindings(guarded(evaluate), findings);
                return;
            } catch (PolyglotException next) {
                failure = next;
            }
        }
    }

    /** Adds the findings _evaluate returned (a list of (index, status, message), or None). */
    private void addFindings(Value result, List<Finding> findings) {
        if (result.isNull()) {
            return;
        }
        for (long i = 0; i < result.getArraySize(); i++) {
            Value f = result.getArrayElement(i);
            int index = f.getArrayElement(0).asInt();
            Finding.Status status = switch (f.getArrayElement(1).asString()) {
                case "F" -> Finding.Status.TURNED_FALSE;
                case "T" -> Finding.Status.TURNED_TRUE;
                default -> Finding.Status.ERROR;
            };
            findings.add(new Finding(predicateNames.get(index), predicateKinds.get(index), status,
                    f.getArrayElement(2).asString(), fromPython(f.getArrayElement(3)), f.getArrayElement(4).asLong()));
        }
    }

    private void internNewSymbols() {
        if (!newSymbols.isEmpty()) {
            intern.execute(newSymbols.toArray());
            newSymbols.clear();
        }
    }

    private int symbol(String value) {
        Integer index = symbols.get(value);
        if (index == null) {
            index = symbols.size();
            symbols.put(value, index);
            newSymbols.add(value);
        }
        return index;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "failed";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    /**
     * Starts another run of the same script in the same context (the explorer's next path): the tables are emptied
     * and every derived value and predicate is as before the first step, while the script stays loaded. Values a
     * script keeps in its own module globals are not reset; predicates are meant to read the tables.
     */
    public void newRun() {
        heldSteps = null;
        newRun.execute();
    }

    /** The aux values of {@code predicate} now, normalized like row values (aux functions get no witness). */
    public Map<String, Object> aux(String predicate) {
        return auxValues(aux, predicate, 0);
    }

    /**
     * The aux values of the finding of {@code predicate} numbered {@code serial} now (aux functions that take an
     * argument get its witness), normalized like row values.
     */
    public Map<String, Object> aux(String predicate, long serial) {
        return auxValues(aux, predicate, serial);
    }

    /**
     * The aux values of an eventually {@code predicate} after the latest event of its current or just ended span
     * (the evaluation takes them after every event while the span is open), normalized like row values.
     */
    public Map<String, Object> latestAux(String predicate) {
        return auxValues(latestAux, predicate, 0);
    }

    /** The same for the span numbered {@code serial} (one per witness); a span that ended is forgotten once asked. */
    public Map<String, Object> latestAux(String predicate, long serial) {
        return auxValues(latestAux, predicate, serial);
    }

    private Map<String, Object> auxValues(Value function, String predicate, long serial) {
        int index = predicateNames.indexOf(predicate);
        if (index < 0) {
            return Map.of();
        }
        try {
            Map<String, Object> out = new LinkedHashMap<>();
            if (fromPython(guarded(function, index, serial)) instanceof Map<?, ?> values) {
                values.forEach((k, v) -> out.put(String.valueOf(k), v));
            }
            return out;
        } catch (PolyglotException e) {
            if (e.isInterrupted() || e.isCancelled()) {
                reusable = false;
                timedOut.execute();
                return Map.of("aux", "<timed out>");
            }
            throw e;
        }
    }

    private Value guarded(Value function, Object... arguments) {
        return watched(timeoutNanos, () -> function.execute(arguments));
    }

    /** Runs {@code call} into the context, which the watchdog interrupts once it has run {@code allowedNanos}. */
    private Value watched(long allowedNanos, java.util.function.Supplier<Value> call) {
        callNumber++;
        deadlineNanos = System.nanoTime() + allowedNanos;
        try {
            return call.get();
        } finally {
            // Under the watchdog's lock: once a call returned, no interrupt meant for it can reach the next call
            // into the context, which may be unguarded.
            synchronized (interruptLock) {
                deadlineNanos = Long.MAX_VALUE;
                callNumber++;
            }
            progress.endCall();
        }
    }

    /**
     * Told by {@code _steps} which step of a call runs, so that the predicate timeout applies to each step and an
     * evaluation stopped or failed is blamed on the right one. The only host object Python is given; it reaches
     * nothing else. Called on the evaluating thread only; the watchdog reads what it sets.
     *
     * <p>A script can reach this object (walking frames up to {@code _resume}), so a report is honoured only if it
     * names the step after the last one reported, within the steps the running call holds, and only in calls that
     * run steps: a script calling {@link #next} in a loop gets at most one reset per step left in its batch (at most
     * {@value StepPipeline#BATCH_SIZE}), and once a report out of order shows that something other than
     * {@code _resume} reports, no report resets the deadline again for the rest of the check: each call then has one
     * predicate timeout in all.
     */
    public final class Progress {
        private int index;
        // The only index the next report may name, or -1 outside calls that run steps; and the end of the call's steps.
        private int expected = -1;
        private int limit;
        private boolean distrusted;

        private Progress() {
        }

        void startCall(int first, int stepsHeld) {
            index = first;
            expected = first;
            limit = stepsHeld;
        }

        void endCall() {
            expected = -1;
            limit = 0;
        }

        /** Whether a report came out of order: something other than the deja module reported. */
        boolean distrusted() {
            return distrusted;
        }

        /** Step {@code index} of the current call starts: its evaluation gets the whole predicate timeout. */
        @HostAccess.Export
        public void next(int index) {
            if (index != expected || index >= limit) {
                distrusted = true;
                return;
            }
            this.index = index;
            expected = index + 1;
            if (!distrusted) {
                callNumber++;
                deadlineNanos = System.nanoTime() + timeoutNanos;
            }
        }
    }

    private void watch() {
        long pollNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(5), Math.min(timeoutNanos / 8, TimeUnit.MILLISECONDS.toNanos(200)));
        while (!closed) {
            LockSupport.parkNanos(pollNanos);
            synchronized (interruptLock) {
                long call = callNumber;
                long deadline = deadlineNanos;
                if (deadline != Long.MAX_VALUE && System.nanoTime() > deadline && call == callNumber && !closed) {
                    try {
                        context.interrupt(Duration.ofSeconds(10));
                    } catch (Exception e) {
                        // The evaluation ended meanwhile, or the context is closing: nothing to stop.
                    }
                }
            }
        }
    }

    private Object toPython(Object value) {
        if (value instanceof List<?> list) {
            Object[] items = new Object[list.size()];
            for (int i = 0; i < items.length; i++) {
                items[i] = toPython(list.get(i));
            }
            return makeTuple.execute(items);
        }
        if (value instanceof Map<?, ?> map) {
            Object[] flat = new Object[map.size() * 2];
            int i = 0;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                flat[i++] = toPython(entry.getKey());
                flat[i++] = toPython(entry.getValue());
            }
            return makeDict.execute(flat);
        }
        return value;
    }

    /** A Python value as the normalized Java values of {@link RowChange}. */
    static Object fromPython(Value value) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (value.isBoolean()) {
            return value.asBoolean();
        }
        if (value.isNumber()) {
            if (value.fitsInLong()) {
                return value.asLong();
            }
            // An int beyond a long's range (Python's have none) is kept whole, not rounded to a double.
            return value.fitsInBigInteger() ? (Object) value.asBigInteger() : (Object) value.asDouble();
        }
        if (value.isString()) {
            return value.asString();
        }
        if (value.hasHashEntries()) {
            Map<Object, Object> out = new LinkedHashMap<>();
            Value keys = value.getHashKeysIterator();
            while (keys.hasIteratorNextElement()) {
                Value key = keys.getIteratorNextElement();
                out.put(fromPython(key), fromPython(value.getHashValue(key)));
            }
            return Collections.unmodifiableMap(out);
        }
        if (value.hasArrayElements()) {
            List<Object> out = new ArrayList<>();
            for (long i = 0; i < value.getArraySize(); i++) {
                out.add(fromPython(value.getArrayElement(i)));
            }
            return Collections.unmodifiableList(out);
        }
        return value.toString();
    }

    /**
     * Writes out what Python buffered of the script's output so far (what its loading printed, when called right after
     * the constructor). Returns false if that failed (a script that replaced or broke its output streams).
     */
    public boolean flushScriptOutput() {
        try {
            pooled.flushOutput();
            return true;
        } catch (PolyglotException e) {
            return false;
        }
    }

    @Override
    public void close() {
        boolean joined = stopWatchdog();
        pooled.release(reusable && joined);
    }

    /**
     * Stops the watchdog and waits for it: it must be gone before another check may take the context, which it could
     * still interrupt. Returns whether it ended.
     */
    private boolean stopWatchdog() {
        closed = true;
        if (!watchdog.isAlive()) {
            return true;
        }
        LockSupport.unpark(watchdog);
        try {
            return watchdog.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
