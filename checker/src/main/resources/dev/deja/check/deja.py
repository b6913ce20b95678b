"""The deja module: declared tables, derived values and predicates for Deja checker scripts.

A script declares tables of node state with table(), values computed from them with @derived, and
properties with @always (safety) and @eventually (liveness). The checker keeps Python-native mirrors of the
tables, updated after every replayed event, and re-evaluates a derived value or predicate only when
something it read (a table, another derived value, the event built-ins) changed.
"""

if __name__ == "__main__":
    # The checker evaluates this file once as the main module only to take its compiled code, which it then runs
    # as the module "deja" (the installer in ReusableContext). Code evaluated from the same source is shared by every check of
    # the process, so a re-check starts with the JIT-compiled code of earlier checks instead of the interpreter.
    __deja_code__ = __import__("sys")._getframe(0).f_code

# The module is created once per Python context and serves every check run in it: _deja_setup_reset() empties its
# state in place between checks. Its classes, functions and state objects stay the same objects, so the code
# compiled for one check stays valid for the next (a new module per check made the compiler throw away and redo its
# work, and rebinding a module global does the same to the code that reads it).
#
# Code that runs a few times per check and never per event (declaring, resetting, handing the declarations to the
# checker) is defined under a name containing "deja_setup": the engine never compiles such functions (see
# PythonEngine), since over the checks of one process their calls add up to the compilation threshold and each
# compilation then costs tens to hundreds of milliseconds of CPU in the middle of some later check. Public names and
# __init__ methods are bound to such functions under their usual names. Comprehensions get names of their own, so
# such code uses plain loops.


def _public(name):
    """Gives a set-up function its public name, as error messages and help() show it."""
    def deja_setup_rename(f):
        f.__name__ = f.__qualname__ = name
        return f
    return deja_setup_rename

__all__ = ["table", "derived", "always", "eventually", "forall", "exists", "implies", "event", "now",
           "stats", "nodes", "Witnesses"]


class _Source:
    """Something a derived value or predicate can read. Whoever read it at their last evaluation is among its
    dependents and becomes dirty when it changes, so only dirty derived values and predicates are evaluated."""
    __slots__ = ("name", "dependents")

    def _deja_setup_init(self, name):
        self.name = name
        self.dependents = set()
    __init__ = _deja_setup_init

    def bump(self):
        dependents = self.dependents
        if dependents:  # most sources have no reader; even an empty set's iterator costs on every event
            for d in dependents:
                d.dirty = True


def _link(reader, read):
    """Records what reader read at the evaluation that just ended; it is clean until one of those changes."""
    old = reader._deps
    if old != read:
        for s in old - read:
            s.dependents.discard(reader)
        for s in read - old:
            s.dependents.add(reader)
        reader._deps = read
    reader.dirty = False


# The dependency set of the evaluation in progress, or None outside evaluations.
_reading = None


def _read(source):
    if _reading is not None:
        _reading.add(source)


class _Row:
    __slots__ = ("node", "oid", "_versions")

    def versions(self, column):
        """The last keep_versions values of column, newest first (just the current value if not kept)."""
        kept = self._versions
        if kept is not None and column in kept:
            return tuple(kept[column])
        return (getattr(self, column),)

    def __repr__(self):
        return "%s(node=%r, oid=%r, %s)" % (type(self).__name__, self.node, self.oid, ", ".join(
            "%s=%r" % (c, getattr(self, c)) for c in type(self)._columns))


class Table:
    """A declared table: iterable over its rows, with len; rows expose their columns as attributes."""

    def _deja_setup_init(self, name, cls, columns, keep_versions):
        self.name = name
        self.cls = cls
        self.columns = tuple(columns)
        self.keep_versions = dict(keep_versions)
        self._source = _Source(name)
        self._rows = {}
        self._row_list = None   # the rows as a tuple, until a row is inserted or deleted
        # The same row class for the same declaration in every check, for the compiled code's sake (see the top).
        key = (name, tuple(columns))
        row_type = _row_types.get(key)
        if row_type is None:
            row_type = _row_types[key] = type(name, (_Row,), {"__slots__": tuple(columns), "_columns": tuple(columns)})
        self._row_type = row_type
    __init__ = _deja_setup_init

    def __iter__(self):
        _read(self._source)
        rows = self._row_list
        if rows is None:
            # Rows change in place between events, so the tuple stays right until one comes or goes; a derived
            # value that scans a table after every change of it no longer copies the table each time.
            rows = self._row_list = tuple(self._rows.values())
        return iter(rows)

    def __len__(self):
        _read(self._source)
        return len(self._rows)

    def get(self, oid):
        """The row with this oid, or None."""
        _read(self._source)
        return self._rows.get(oid)

    def where(self, **columns):
        """The rows whose columns equal the given values, e.g. Agent.where(node="n1")."""
        _read(self._source)
        return [r for r in self._rows.values() if all(getattr(r, k) == v for k, v in columns.items())]

    def __repr__(self):
        return "<table %s: %d rows>" % (self.name, len(self._rows))

    # Called by the checker only.
    def _apply(self, kind, node, oid, values):
        self._source.bump()
        if kind == "D":
            if self._rows.pop(oid, None) is not None:
                self._row_list = None
            return
        row = self._rows.get(oid)
        if row is None:
            row = self._row_type()
            row.node = node
            row.oid = oid
            row._versions = {c: [] for c in self.keep_versions} if self.keep_versions else None
            self._rows[oid] = row
            self._row_list = None
        kept = row._versions
        if kept is None:
            for column, value in zip(self.columns, values):
                setattr(row, column, value)
            return
        for column, value in zip(self.columns, values):
            if column in kept:
                history = kept[column]
                if not history or history[0] != value:
                    history.insert(0, value)
                    del history[self.keep_versions[column]:]
            setattr(row, column, value)


# Row classes by (table name, columns), kept for the life of the module.
_row_types = {}


class _Registry:
    def _deja_setup_init(self):
        self.tables = []
        self.derived = []
        self.predicates = []
        self.names = set()
    __init__ = _deja_setup_init

    def deja_setup_claim(self, name, what):
        if name in self.names:
            raise ValueError("%s %r: the name is already declared" % (what, name))
        self.names.add(name)
    claim = deja_setup_claim


_registry = _Registry()


@_public("table")
def deja_setup_table(name, cls, columns, keep_versions=None):
    """Declares a table with one row per live object of class cls (or a subclass) on each node."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError("table name must be an identifier, was %r" % (name,))
    if not isinstance(cls, str) or not cls:
        raise ValueError("table %s: cls must be a Java class name" % name)
    columns = list(columns)
    for c in columns:
        if not isinstance(c, str) or not c.isidentifier() or c in ("node", "oid", "versions") or c.startswith("_"):
            raise ValueError("table %s: invalid column name %r" % (name, c))
    keep_versions = dict(keep_versions or {})
    for c, n in keep_versions.items():
        if c not in columns:
            raise ValueError("table %s: keep_versions names %r, which is not a column" % (name, c))
        if not isinstance(n, int) or n < 1:
            raise ValueError("table %s: keep_versions[%r] must be a positive int" % (name, c))
    _registry.claim(name, "table")
    t = Table(name, cls, columns, keep_versions)
    _registry.tables.append(t)
    return t


table = deja_setup_table


class _Failed:
    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


# A value no derived value has: what was recorded before anything was.
_UNSET = object()


class Derived:
    """A derived value: call it for the current value, .versions() for its history, newest first."""

    def _deja_setup_init(self, fn, keep_versions):
        self.fn = fn
        self.name = fn.__name__
        self.keep = keep_versions
        self._source = _Source(self.name)
        self._deps = frozenset()
        self.dirty = True
        self._value = None
        self._history = []
        self._evaluations = 0
        self._step = -1
        # Recording (see _deja_setup_record): the changes of its value and of what it read, as (position, repr of the
        # value or None, names read or None); the value and reads last recorded; why it cannot be stored, if so.
        self._changes = []
        self._recorded_value = self._recorded_deps = _UNSET
        self._unstorable = None
        self._made = None
    __init__ = _deja_setup_init

    def _refresh(self):
        global _reading
        if not self.dirty or self._step == _state.step:
            return
        self._step = _state.step
        outer = _reading
        _reading = set()
        self._evaluations += 1
        try:
            value = self.fn()
        except BaseException as e:
            value = _Failed(e)
        # Not in a finally clause: one would also run when the watchdog stops the value, and _abandoned needs what it
        # read so far (a derived value's when it was stopped inside another one that it called).
        deps = _reading
        _reading = outer
        _link(self, deps)
        changed = not self._history or _differs(self._history[0], value)
        if changed or isinstance(value, _Failed):
            self._source.bump()
            self._value = value
            if not isinstance(value, _Failed):
                self._history.insert(0, value)
                del self._history[self.keep:]
        if _state.recording and self._unstorable is None:
            self._record()

    def _record(self):
        """Notes a change of its value or of what it read at this event, for the stored history: a re-check whose
        changed predicates read it gets its values from there instead of evaluating it."""
        value = self._value
        deps = self._deps
        if value is self._recorded_value and deps is self._recorded_deps:
            return
        if isinstance(value, _Failed):
            self._unstorable = "raised an exception"
            self._changes = []
            return
        text = None
        if value is not self._recorded_value:
            text = repr(value)
            if text.startswith("<"):
                # Not a literal (an object of its own class...): it could not be given back exactly.
                self._unstorable = "its value has no literal form: " + text[:60]
                self._changes = []
                return
        names = None
        if deps is not self._recorded_deps:
            names = set()
            for source in deps:
                names.add(source.name)
            names = tuple(sorted(names))
        self._changes.append((event._position, text, names))
        self._recorded_value = value
        self._recorded_deps = deps

    def __call__(self):
        self._refresh()
        _read(self._source)
        if isinstance(self._value, _Failed):
            raise self._value.error
        return self._value

    def versions(self):
        self._refresh()
        _read(self._source)
        return tuple(self._history)

    def __repr__(self):
        return "<derived %s>" % self.name


def _differs(a, b):
    if isinstance(a, _Failed) or isinstance(b, _Failed):
        return True
    try:
        return bool(a != b)
    except Exception:
        return True


@_public("derived")
def deja_setup_derived(fn=None, keep_versions=1):
    """Declares a derived value, recomputed once per event and only when what it read changed."""
    if not isinstance(keep_versions, int) or keep_versions < 1:
        raise ValueError("derived: keep_versions must be a positive int")

    def deja_setup_wrap(f):
        _registry.claim(f.__name__, "derived")
        d = Derived(f, keep_versions)
        d._made = _deja_setup_made(f)
        _registry.derived.append(d)
        return d
    return deja_setup_wrap(fn) if fn is not None else deja_setup_wrap


def _deja_setup_made(f):
    """Where the script made a derived value, for one that gets no global name (see _deja_setup_globals): the first
    line of its function, then the line of each of the script's frames that made it, innermost first, the last at
    the top level of the script. None when that cannot be told: a function from elsewhere, or one made while the
    script was not running its top level (during an evaluation)."""
    code = getattr(f, "__code__", None)
    script = getattr(f, "__globals__", None)
    if code is None or script is None:
        return None
    lines = [code.co_firstlineno]
    frame = __import__("sys")._getframe(2)
    while frame is not None:
        if frame.f_globals is script:
            lines.append(frame.f_lineno)
            if frame.f_code.co_name == "<module>":
                return tuple(lines)
        frame = frame.f_back
    return None


derived = deja_setup_derived


class _AuxWatch:
    """Whether an open span's aux values (all derived values) changed since they were last taken."""
    __slots__ = ("dirty",)

    def _deja_setup_init(self):
        self.dirty = True
    __init__ = _deja_setup_init


class Predicate:
    def _deja_setup_init(self, fn, kind, aux):
        self.fn = fn
        self.name = fn.__name__
        self.kind = kind
        self.aux = list(aux)
        self._deps = frozenset()
        self.dirty = True
        self.evaluations = 0
        self.failing = False   # false or raising at its last evaluation
        # The witnesses that violate it now, by key (see _witnesses): the serial number of their finding and the
        # witness itself. A boolean predicate that is false has one witness, None.
        self.witnesses = {}
        # Whether each aux function takes the witness as its argument.
        self.aux_takes_witness = []
        for a in self.aux:
            self.aux_takes_witness.append(_deja_setup_takes_witness(a))
        self.erred = False     # raised or timed out at its last evaluation
        # An eventually predicate's spans, one per witness: open from the witness's appearance to its
        # disappearance (errors do not end them), and their aux values after the latest event of the span, by
        # serial number, which a span's end reports.
        self.span_open = False
        self.latest_aux = {}
        self.ended_aux = {}    # spans ended at this event: their latest aux, until the checker takes it
        self.last_ended_aux = None   # the latest aux of the span that ended last (for callers without serials)
        # When every aux value is a derived value, latest_aux changes only when one of them does: the watch is
        # among their readers and is marked dirty then. Otherwise (None) latest_aux is taken after every event.
        self.aux_watch = None
        if self.aux:
            watch = _AuxWatch()
            for a in self.aux:
                if not isinstance(a, Derived):
                    watch = None
                    break
            if watch is not None:
                for a in self.aux:
                    a._source.dependents.add(watch)
                self.aux_watch = watch
    __init__ = _deja_setup_init

    def __call__(self):
        return self.fn()

    def __repr__(self):
        return "<%s %s>" % (self.kind, self.name)


def _deja_setup_takes_witness(a):
    """Whether an aux function takes the witness as its one argument (a derived value never does)."""
    if isinstance(a, Derived):
        return False
    code = getattr(a, "__code__", None)
    return code is not None and code.co_argcount >= 1


def _predicate(kind):
    @_public(kind)
    def deja_setup_decorator(fn=None, aux=()):
        def deja_setup_wrap(f):
            for a in aux:
                if not callable(a):
                    raise ValueError("%s %s: aux must list derived values or functions, got %r" % (kind, f.__name__, a))
            _registry.claim(f.__name__, kind)
            p = Predicate(f, kind, aux)
            _registry.predicates.append(p)
            return p
        return deja_setup_wrap(fn) if fn is not None else deja_setup_wrap
    return deja_setup_decorator


always = _predicate("always")
always.__doc__ = ("Declares a safety property: reported at each event where it turns false, or, for a predicate "
                  "that returns the items violating it, where each item appears.")
eventually = _predicate("eventually")
eventually.__doc__ = ("Declares a liveness property: a violation is a span from the event where it turns false "
                      "to the event where it turns true again (or the end of the trace); for a predicate that "
                      "returns the items violating it, one span per item.")


class Witnesses(tuple):
    """What forall and exists return when they fail: false in a condition, and the failing rows, which the
    checker reports as the predicate's witnesses (one finding per row)."""
    __slots__ = ()

    def __bool__(self):
        return False

    def __repr__(self):
        return "Witnesses(%s)" % ", ".join(repr(w) for w in self)


def forall(rows, predicate):
    """True when predicate(row) holds for every row; otherwise the rows for which it does not (false)."""
    failing = None
    for r in rows:
        if not predicate(r):
            if failing is None:
                failing = []
            failing.append(r)
    return True if failing is None else Witnesses(failing)


def exists(rows, predicate):
    """True when predicate(row) holds for some row; otherwise the rows, all failing it (false), or False if
    there are none."""
    failing = []
    for r in rows:
        if predicate(r):
            return True
        failing.append(r)
    return Witnesses(failing) if failing else False


_COLLECTIONS = (set, frozenset, list, tuple, dict)


def _witnesses(result):
    """A predicate's result as {key: witness}: a collection (set, list, tuple, dict's keys, or forall's and
    exists's Witnesses) lists the items violating it, each a witness; anything else is a truth value, and a false
    one has the single witness None."""
    if isinstance(result, _COLLECTIONS) or type(result).__name__ == "generator":
        out = {}
        for w in result:
            out[_witness_key(w)] = w
        return out
    return {} if result else {None: None}


def _witness_key(w):
    """A hashable key that identifies a witness across events: a row by table, node and oid (its columns
    change), anything else by value (lists and dicts as tuples)."""
    if isinstance(w, _Row):
        return ("\0row", type(w).__name__, w.node, w.oid)
    if isinstance(w, (list, tuple)):
        return tuple(_witness_key(x) for x in w)
    if isinstance(w, (set, frozenset)):
        return frozenset(_witness_key(x) for x in w)
    if isinstance(w, dict):
        return tuple((_witness_key(k), _witness_key(v)) for k, v in w.items())
    try:
        hash(w)
        return w
    except TypeError:
        return repr(w)


def _witness_value(w):
    """A witness as the report shows it: a row as 'Table[node:oid]', containers element by element."""
    if isinstance(w, _Row):
        return "%s[%s:%s]" % (type(w).__name__, w.node, w.oid)
    if isinstance(w, (list, tuple)):
        return tuple(_witness_value(x) for x in w)
    if isinstance(w, (set, frozenset)):
        return tuple(sorted((_witness_value(x) for x in w), key=repr))
    if isinstance(w, dict):
        return {_witness_value(k): _witness_value(v) for k, v in w.items()}
    if w is None or isinstance(w, (bool, int, float, str)):
        return w
    return repr(w)


def implies(a, b):
    """Logical implication: not a or b. Python evaluates arguments first, so when b is only meaningful if a
    holds, pass it as a function: implies(len(v) == 2, lambda: v[0] >= v[1])."""
    if not a:
        return True
    return b() if callable(b) else b


class _Event:
    """The event just replayed: position, node, type, message_type, lamport, clock, incarnation, seq, sender."""
    __slots__ = ("_position", "_node", "_type", "_message_type", "_lamport", "_clock", "_incarnation", "_seq",
                 "_sender")

    def _deja_setup_clear(self):
        for s in _Event.__slots__:
            setattr(self, s, None)
    _clear = __init__ = _deja_setup_clear

    def _get(name):
        def get(self):
            _read(_state.event_source)
            return getattr(self, name)
        return property(get)

    position = _get("_position")
    node = _get("_node")
    type = _get("_type")
    message_type = _get("_message_type")
    lamport = _get("_lamport")
    clock = _get("_clock")
    incarnation = _get("_incarnation")
    seq = _get("_seq")
    sender = _get("_sender")
    del _get

    def __repr__(self):
        return "<event %s %s %s %s lamport %s>" % (self._position, self._node, self._type, self._message_type or "",
                                                   self._lamport)


event = _Event()


def now(node):
    """The clock (milliseconds) of node at its last replayed event, or None before its first."""
    # A source per node, not the event built-ins': the value changes only at that node's events.
    source = _state.clock_sources.get(node)
    if source is None:
        source = _state.clock_sources[node] = _Source("clock")
    _read(source)
    return _state.clocks.get(node)


class _Stats:
    """Counters over the events so far (paper 3.3.3)."""

    def messages(self, message_type, window=None):
        """How many messages of this type were received in the last window events (all events if None)."""
        _read(_state.event_source)
        times = _state.message_times.get(message_type, ())
        if window is None:
            return len(times)
        first = _state.step - window
        return sum(1 for t in times if t > first)

    def since_message(self, message_type):
        """Events since the last received message of this type, or None if there was none."""
        _read(_state.event_source)
        times = _state.message_times.get(message_type)
        return _state.step - times[-1] if times else None

    def since_change(self, what):
        """Events since the last change of a table (given as the table) or None if it never changed."""
        _read(_state.event_source)
        step = _state.table_changes.get(what.name if isinstance(what, Table) else what)
        return None if step is None else _state.step - step

    def since_restart(self, node):
        """Events since node's incarnation last changed, or None if it never started."""
        _read(_state.event_source)
        step = _state.restarts.get(node)
        return None if step is None else _state.step - step

    def events(self):
        """Events checked so far, including this one."""
        _read(_state.event_source)
        return _state.step + 1


stats = _Stats()


class _NodeRow:
    __slots__ = ("id", "alive", "incarnation", "died_at", "died_clock")

    def __repr__(self):
        return "node(id=%r, alive=%r, incarnation=%r, died_at=%r)" % (self.id, self.alive, self.incarnation,
                                                                      self.died_at)


class _Nodes:
    """The built-in nodes table: id, alive, incarnation, died_at, died_clock. A node that crashed and never
    restarted (its recording ended without a clean shutdown and no later incarnation followed) is alive until its
    last event and not alive from then on; died_at is that event's position and died_clock its clock (None while
    the node is alive)."""

    def _deja_setup_init(self):
        self._source = _Source("nodes")
        self._rows = {}
        self.name = "nodes"
    __init__ = _deja_setup_init

    def _deja_setup_clear(self):
        self._source.dependents.clear()
        self._rows.clear()
    _clear = _deja_setup_clear

    def __iter__(self):
        _read(self._source)
        return iter(list(self._rows.values()))

    def __len__(self):
        _read(self._source)
        return len(self._rows)

    def get(self, node):
        _read(self._source)
        return self._rows.get(node)


nodes = _Nodes()


class _State:
    def _deja_setup_clear(self):
        self.step = -1
        self.event_source = _Source("event")
        self.clocks = {}
        self.clock_sources = {}   # node: the _Source of now(node)
        self.clock_nodes = ()     # the nodes whose clocks something read at the last evaluation
        self.event_read = True    # whether anything read the event built-ins then (until the first one, assume so)
        self.batch = ()           # the events of the last _steps call, and where _resume goes on in them
        self.batch_at = 0
        self.batch_index = 0
        self.message_times = {}
        self.table_changes = {}
        self.restarts = {}
        self.findings = []
        self.serial = 0           # the last finding's serial number, which names its witness to _aux and _latest_aux
        self.deaths = {}          # node: (incarnation, seq) of its last event, for a node that crashed for good
        self.next_predicate = 0
        self.aux_done = False     # the latest aux of open spans was computed for this event
        self.aux_of = None        # the predicate whose latest aux is being computed
        self.spans_open = False
        self.current = None
        self.tables = []
        self.eager_derived = None  # the derived values refreshed after each event; None for all
        self.recording = False     # whether derived values note their changes (Derived._record)
    _clear = __init__ = _deja_setup_clear


_state = _State()


# ---- called by the checker ----

def _deja_setup_reset():
    """Empties every piece of state a check left, in place, so that the next check starts as in a new module."""
    global _reading
    _reading = None
    _registry.__init__()
    event._clear()
    nodes._clear()
    _state._clear()
    _symbols.clear()
    _probe_outcomes.clear()
    _script_file[0] = None


def _deja_new_run():
    """Starts another run of the same script (the explorer's next path): every table emptied, every derived value and
    predicate back to its state before the first event and due for evaluation, the event built-ins cleared; the script,
    its declarations and the symbols stay, so that no start-up is paid again. What readers read stays linked (their
    sources are kept), and since every reader is dirty, the first evaluation of the run links them afresh."""
    global _reading
    _reading = None
    for t in _registry.tables:
        t._rows = {}
        t._row_list = None
    for d in _registry.derived:
        d.dirty = True
        d._value = None
        d._history = []
        d._step = -1
        d._changes = []
        d._recorded_value = d._recorded_deps = _UNSET
        d._unstorable = None
    for p in _registry.predicates:
        p.dirty = True
        p.failing = False
        p.witnesses = {}
        p.span_open = False
        p.latest_aux = {}
        p.ended_aux = {}
        if p.aux_watch is not None:
            p.aux_watch.dirty = True
    event._clear()
    nodes._rows.clear()
    for s in (nodes._source, _state.event_source):
        s.bump()
    st = _state
    st.step = -1
    st.clocks = {}
    for source in st.clock_sources.values():
        source.bump()
    st.event_read = True
    st.batch = ()
    st.batch_at = 0
    st.batch_index = 0
    st.message_times = {}
    st.table_changes = {}
    st.restarts = {}
    st.findings = []
    st.serial = 0
    st.deaths = {}
    st.next_predicate = 0
    st.aux_done = False
    st.aux_of = None
    st.spans_open = False
    st.current = None


def _deja_setup_install(tables):
    _state.tables = tables


def _deja_setup_deaths(*flat):
    """The nodes that crashed for good, as (node, incarnation, seq of its last event) triples, flattened."""
    for i in range(0, len(flat), 3):
        _state.deaths[flat[i]] = (flat[i + 1], flat[i + 2])


# Strings that recur in every step (node ids, event and message types, change kinds) cross from Java as indexes
# into this list, so that each is one Python object whose hash is computed once, not a new string per step.
_symbols = []


def _deja_setup_intern(*strings):
    _symbols.extend(strings)


def _steps(progress, *flat):
    """Events in replay order, each as 9 facts (position, node, incarnation, seq, lamport, clock, type, message type,
    sender; node, types and sender as _symbols indexes, -1 for none), then how many values its row changes take, then
    those changes flattened as (table, kind, node, oid, values...) with kind and node as _symbols indexes, then how
    many served derived values change at it, then those as (index in _registry.derived, value or _UNSET when only
    what it read changed, the sources it read or None when unchanged): what the stored history says they became
    there (see _deja_setup_serve). Each event
    is applied and evaluated in turn, except that one which changes no row and no served value while nothing reads the
    event built-ins or its node's clock gets only its bookkeeping (step count, clocks, message times), since no result
    can depend on it.
    Before each event, progress.next(i) tells the checker's watchdog that event i of the call runs. Stops after the
    first event with findings and returns (its index, the findings as _evaluate returns them); None if none had any.
    _resume goes on with the event after it. One call for many events: a call from the checker into Python costs more
    than most events' evaluation."""
    _state.batch = flat
    _state.batch_at = 0
    _state.batch_index = 0
    return _resume(progress)


def _resume(progress):
    """Goes on with the events of the last _steps call after the one it stopped at (or was stopped in)."""
    symbols = _symbols
    state = _state
    tables = state.tables
    flat = state.batch
    n = len(flat)
    i = state.batch_at
    index = state.batch_index
    # _quiet of the event at i when the one before it was passed over as quiet: nothing was evaluated since, so it
    # still holds (_begin and served values change no reader).
    quiet = None
    while i < n:
        progress.next(index)
        c = i + 10
        end = c + flat[i + 9]
        served = flat[end]
        after = end + 1 + 3 * served
        # Set first: after an interrupt anywhere in this event, _resume goes on with the next one.
        state.batch_at = after
        state.batch_index = index + 1
        node = symbols[flat[i + 1]]
        type_ = symbols[flat[i + 6]]
        message_type = flat[i + 7]
        sender = flat[i + 8]
        dies = _begin(flat[i], node, flat[i + 2], flat[i + 3], flat[i + 4], flat[i + 5], type_,
                      symbols[message_type] if message_type >= 0 else None, symbols[sender] if sender >= 0 else None)
        if served:
            _apply_served(flat, end + 1, served)
        start = i
        i = after
        known, quiet = quiet, None
        if c == end and not served and not state.event_read and type_ != "start" and type_ != "crash" \
                and node not in state.clock_nodes and not dies:
            index += 1
            continue
        if served and c == end and (known if known is not None else _quiet(flat, start, n)):
            quiet = _quiet(flat, after, n)
            if quiet:
                # Only values that aux values read changed, and the next event cannot end a span either: nothing is
                # due and open spans' aux values wait (_update_latest_aux), so evaluating would change nothing.
                index += 1
                continue
            quiet = None
        step = state.step
        while c < end:
            t = tables[flat[c]]
            kind = symbols[flat[c + 1]]
            if kind == "D":
                t._apply(kind, symbols[flat[c + 2]], flat[c + 3], ())
                c += 4
            else:
                width = len(t.columns)
                t._apply(kind, symbols[flat[c + 2]], flat[c + 3], flat[c + 4:c + 4 + width])
                c += 4 + width
            state.table_changes[t.name] = step
        findings = _evaluate()
        if findings:
            return (index, findings)
        index += 1
    state.batch = ()
    return None


def _apply_served(flat, at, count):
    """What the stored history says the served derived values became at this event (count changes from flat[at], as
    _steps describes them): their new values, as evaluating them would have made them (history, and their readers
    dirty), and what they read."""
    derived = _registry.derived
    for k in range(at, at + 3 * count, 3):
        d = derived[flat[k]]
        value = flat[k + 1]
        reads = flat[k + 2]
        if reads is not None:
            d._deps = reads
        if value is not _UNSET:
            d._source.bump()
            d._value = value
            d._history.insert(0, value)
            del d._history[d.keep:]


def _quiet(flat, at, n):
    """Whether the event at flat[at] cannot end an eventually predicate's span, so that open spans' aux values need
    not be taken after the event before it (they are reported as they were after a span's last event, and that is
    never this one then): it changes no row and is no start, crash, death or first event of its node's incarnation
    (all of which change the nodes table); it changes served values,
    whose readers are aux values only; and nothing evaluated reads the event built-ins or its node's clock. Such an
    event is evaluated itself (its served values changed), so the aux values are taken after it or a later one. False
    at the end of the batch: the next batch may begin with anything."""
    if at >= n or flat[at + 9]:
        return False
    state = _state
    symbols = _symbols
    type_ = symbols[flat[at + 6]]
    node = symbols[flat[at + 1]]
    if type_ == "start" or type_ == "crash" or state.event_source.dependents:
        return False
    source = state.clock_sources.get(node)
    if source is not None and source.dependents:
        return False
    row = nodes._rows.get(node)
    if row is None or row.incarnation != flat[at + 2]:
        return False
    death = state.deaths.get(node)
    if death is not None and death[0] == flat[at + 2] and death[1] == flat[at + 3]:
        return False
    derived = _registry.derived
    changed = False
    for k in range(at + 11, at + 11 + 3 * flat[at + 10], 3):
        if flat[k + 1] is not _UNSET:
            changed = True
            for reader in derived[flat[k]]._source.dependents:
                if type(reader) is not _AuxWatch:
                    return False
    return changed


def _begin(position, node, incarnation, seq, lamport, clock, type_, message_type, sender):
    _state.step += 1
    e = event
    e._position = position
    e._node = node
    e._type = type_
    e._message_type = message_type
    e._lamport = lamport
    e._clock = clock
    e._incarnation = incarnation
    e._seq = seq
    e._sender = sender
    _state.event_source.bump()
    _state.clocks[node] = clock
    source = _state.clock_sources.get(node)
    if source is not None:
        source.bump()
    if message_type is not None:
        times = _state.message_times.get(message_type)
        if times is None:
            times = _state.message_times[message_type] = []
        times.append(_state.step)
    row = nodes._rows.get(node)
    if type_ == "start" or type_ == "crash" or row is None:
        if row is None:
            row = _NodeRow()
            row.id = node
            nodes._rows[node] = row
            row.incarnation = None
        # A crash entry starts the next incarnation (the replayer runs it there), so the node is alive after it.
        if row.incarnation != incarnation:
            _state.restarts[node] = _state.step
        row.alive = True
        row.died_at = None
        row.died_clock = None
        row.incarnation = incarnation
        nodes._source.bump()
    _state.findings = None
    _state.next_predicate = 0
    _state.aux_done = False
    death = _state.deaths.get(node)
    if death is not None and death[0] == incarnation and death[1] == seq:
        # The node's last event: it crashed after it and never came back.
        row.alive = False
        row.died_at = position
        row.died_clock = clock
        nodes._source.bump()
        return True
    return False


def _evaluate():
    """Refreshes derived values, then evaluates the predicates whose inputs changed, from where a timeout left off.

    Returns the findings, (index, status, message) with status 'F' (turned false), 'T' (turned true), 'E'
    (raised, message is the traceback), or None. Notes whether anything reads the event built-ins and whose clocks
    anything reads, which decide the events _steps may pass over.
    """
    global _reading
    if _state.next_predicate == 0:
        eager = _state.eager_derived
        # Until none is due: one that reads a derived value declared after it is due again once that one changed. So
        # every derived value is up to date before any predicate runs, and a predicate's call never makes one run at
        # another step than it would without that predicate (a re-check serves derived values on that ground).
        due = True
        while due:
            due = False
            for d in (_registry.derived if eager is None else eager):
                if d.dirty and d._step != _state.step:
                    _state.current = d.name
                    d._refresh()
                    due = True
    predicates = _registry.predicates
    count = len(predicates)
    at = _state.next_predicate
    while at < count:
        i = at
        p = predicates[i]
        at += 1
        if not p.dirty:
            continue
        # Set before evaluating, so that after a timeout evaluation resumes with the next predicate.
        _state.next_predicate = at
        _state.current = p.name
        _reading = set()
        p.evaluations += 1
        error = None
        try:
            now_failing = _witnesses(p.fn())
        except (Exception, SystemExit) as e:
            # SystemExit too: a predicate cannot end the check. Not BaseException: the watchdog's interrupt can
            # surface as one while a host call runs, and must end the evaluation.
            now_failing = None
            error = _format_error(e)
        # Not in a finally clause: one would also run when the watchdog stops the predicate, and _abandoned needs
        # what it read so far.
        read = _reading
        _reading = None
        _link(p, read)
        if error is not None:
            _finding((i, "E", error, None, 0))
            p.failing = True
            p.erred = True
            continue
        before = p.witnesses
        if p.erred:
            # It runs again after raising or timing out: holding now is news too.
            p.erred = False
            if not now_failing and not before:
                _finding((i, "T", "", None, 0))
                p.failing = False
                continue
        if not now_failing and not before:
            p.failing = False
            continue
        # Each witness that disappeared ends its finding (a span's end), each that appeared is a new one.
        for key in [k for k in before if k not in now_failing]:
            serial, _ = before.pop(key)
            if p.kind == "eventually":
                p.ended_aux[serial] = p.last_ended_aux = p.latest_aux.pop(serial, None)
            _finding((i, "T", "", None, serial))
        for key, w in now_failing.items():
            if key not in before:
                _state.serial += 1
                before[key] = (_state.serial, w)
                _finding((i, "F", "", _witness_value(w), _state.serial))
                if p.kind == "eventually":
                    p.span_open = True
                    if p.aux_watch is not None:
                        p.aux_watch.dirty = True
        if not before:
            p.span_open = False
        p.failing = bool(before)
    _state.next_predicate = count
    _state.current = None
    if not _state.aux_done:
        # Set first: after a timeout in here, evaluation resumes past it.
        _state.aux_done = True
        _update_latest_aux()
    # Whether anything read the event built-ins at its last evaluation, or a span is open whose aux values are
    # taken after every event: if not, an event that changes no row cannot change any result unless something
    # read its node's clock (_steps).
    _state.event_read = bool(_state.event_source.dependents) or _state.spans_open
    clock_nodes = ()
    for node, source in _state.clock_sources.items():
        if source.dependents:
            clock_nodes += (node,)
    _state.clock_nodes = clock_nodes
    return _state.findings


def _update_latest_aux():
    """The aux values of every open span after this event, kept here until the span ends (_latest_aux): taken again
    only if one of them may have changed (see Predicate.aux_watch), and not before an event that cannot end a span
    (_quiet), after which they are taken anyway."""
    global _reading
    _reading = None
    spans_open = False
    deferred = None
    for p in _registry.predicates:
        if p.span_open and p.aux:
            watch = p.aux_watch
            if watch is None:
                spans_open = True
            elif not watch.dirty:
                continue
            if deferred is None:
                batch = _state.batch
                deferred = _quiet(batch, _state.batch_at, len(batch))
            if deferred:
                continue
            _state.aux_of = p
            shared = None
            for serial, w in p.witnesses.values():
                if shared is not None:
                    p.latest_aux[serial] = shared
                    continue
                values = _aux_values(p, w)
                p.latest_aux[serial] = values
                if not any(p.aux_takes_witness):
                    shared = values
            if watch is not None:
                watch.dirty = False
    _state.aux_of = None
    _state.spans_open = spans_open


def _finding(finding):
    if _state.findings is None:
        _state.findings = []
    _state.findings.append(finding)


def _abandoned():
    """After an interrupt or an engine error: the name of what was running. It counts as evaluated and failing, with what it read
    so far as inputs, so it runs again only when those change (a loop that reads nothing never runs again)."""
    global _reading
    read = _reading or set()
    _reading = None
    if _state.aux_of is not None:
        # Stopped while taking an open span's aux values: not the predicate's fault, and no finding; they are
        # taken again after the next event.
        for serial, _ in _state.aux_of.witnesses.values():
            _state.aux_of.latest_aux[serial] = {"aux": "<timed out>"}
        if _state.aux_of.aux_watch is not None:
            _state.aux_of.aux_watch.dirty = True
        _state.aux_of = None
        return ""
    name = _state.current
    for d in _registry.derived:
        if d.name == name:
            d._value = _Failed(TimeoutError("derived value %s timed out" % name))
            _link(d, read)
            d._step = _state.step
            d._source.bump()
    for p in _registry.predicates:
        if p.name == name:
            _link(p, read)
            p.failing = True
            p.erred = True
    return name


def _aux(index, serial):
    """The aux values of the predicate's finding with this serial number (its witness now present), computed now
    (only at violations)."""
    global _reading
    _reading = None
    p = _registry.predicates[index]
    for s, w in p.witnesses.values():
        if s == serial:
            return _aux_values(p, w)
    return _aux_values(p, None)


def _latest_aux(index, serial):
    """An eventually predicate's aux values for the span with this serial number after the latest event of the
    span (see _update_latest_aux); a span that ended is forgotten once asked."""
    p = _registry.predicates[index]
    if serial in p.ended_aux:
        return p.ended_aux.pop(serial) or {}
    if serial == 0:  # any open span's, else the one that ended last (callers that know of no witness)
        for values in p.latest_aux.values():
            return values or {}
        return p.last_ended_aux or {}
    return p.latest_aux.get(serial) or {}


def _aux_values(p, witness):
    out = {}
    for a, takes in zip(p.aux, p.aux_takes_witness):
        name = getattr(a, "name", None) or getattr(a, "__name__", "aux")
        try:
            out[name] = a(witness) if takes else a()
        except (Exception, SystemExit) as e:
            out[name] = "<error: %s: %s>" % (type(e).__name__, e)
    return out


def _format_error(e):
    """The script's frames of e's traceback, innermost last, then the exception; the traceback module is not
    used because importing it (with linecache, tokenize and re) would cost every check a noticeable start-up."""
    lines = []
    tb = e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == _script_file[0]:
            lines.append("%s:%d: in %s" % (code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    lines.append("%s: %s" % (type(e).__name__, e))
    return "\n".join(lines)


_script_file = [None]


def _deja_setup_script_file(filename):
    """Names the script's file, whose frames error reports show."""
    _script_file[0] = filename


def _deja_setup_check_declared():
    """After the script ran: None, or the error that it declares no predicate."""
    if not _registry.predicates:
        return "%s: declares no predicate (use @always or @eventually)" % _script_file[0]
    return None


def _deja_setup_tables():
    out = []
    for t in _registry.tables:
        out.append((t.name, t.cls, list(t.columns)))
    return out


def _deja_setup_predicates():
    out = []
    for p in _registry.predicates:
        out.append((p.name, p.kind))
    return out


def _deja_setup_reads(index):
    """What each predicate read at its last evaluation, directly or through derived values: {predicate: (names of
    tables, derived values and the built-ins 'nodes', 'event', 'clock', sorted)}; for index >= 0, only that
    predicate's names."""
    derived_by_source = {}
    for d in _registry.derived:
        derived_by_source[d._source] = d
    out = {}
    for p in (_registry.predicates if index < 0 else [_registry.predicates[index]]):
        names = set()
        seen = set()
        todo = list(p._deps)
        while todo:
            source = todo.pop()
            if source in seen:
                continue
            seen.add(source)
            names.add(source.name)
            d = derived_by_source.get(source)
            if d is not None:
                todo.extend(d._deps)
        out[p.name] = tuple(sorted(names))
        if index >= 0:
            return out[p.name]
    return out


def _deja_setup_named_globals():
    """The script's global names with what each is (see _deja_setup_globals), without the derived values made in
    helpers."""
    out = []
    if not _registry.predicates:
        return out
    names = _registry.predicates[0].fn.__globals__
    for name in list(names.keys()):
        if name.startswith("__"):
            continue
        value = names[name]
        what = "other"
        label = None
        if isinstance(value, Table):
            what = "table"
            label = value.name
        elif isinstance(value, Derived):
            what = "derived"
            label = value.name
        elif isinstance(value, Predicate):
            what = "predicate"
            label = value.name
        elif value is event or value is stats or value is nodes or value is now:
            what = "builtin"
        elif type(value).__name__ == "module":
            what = "builtin" if value.__name__ == "deja" else "other"
        elif isinstance(value, (list, dict, set, bytearray)):
            what = "mutable"
        elif not isinstance(value, (type, bool, int, float, complex, str, bytes, tuple, frozenset, range)) \
                and value is not None and not callable(value):
            what = "mutable"
        out.append((name, what, label))
    return out


def _deja_setup_globals():
    """The script's global names, for the checker's fingerprints of predicates: (name, what it is, the table's name
    for a table, the predicate's or derived value's name for one), where what is 'table', 'derived', 'predicate',
    'builtin' (the event built-ins, nodes, now, stats, the deja module), 'mutable' (a list, dict, set or object whose
    contents a function may change, so that whoever reads it may depend on whoever writes it) or 'other'. A derived
    value made in a helper, which has no global name, is listed under a name no identifier has when
    _deja_setup_listed_unbound lists it: "@name:line of its function:lines of the frames that made it", for the
    checker to tell who can read it."""
    out = _deja_setup_named_globals()
    for d in _deja_setup_listed_unbound(out):
        frames = []
        for line in d._made[1:]:
            frames.append(str(line))
        out.append(("@%s:%d:%s" % (d.name, d._made[0], ",".join(frames)), "derived", d.name))
    return out


def _deja_setup_listed_unbound(named):
    """The derived values without a global name that the checker can place, given the script's named globals (see
    _deja_setup_named_globals): those whose making _deja_setup_made could tell, in a script without a mutable global
    (which could hold one where nothing names it); none otherwise."""
    listed = []
    for _, what, _ in named:
        if what == "mutable":
            return listed
    bound = _deja_setup_bound_derived()
    for d in _registry.derived:
        if id(d) not in bound and d._made is not None:
            listed.append(d)
    return listed


def _deja_setup_known_derived():
    """The ids of the derived values the checker can tell the readers of: bound to a global name, or listed under one
    of their own (_deja_setup_listed_unbound). The others are refreshed after every step a re-check evaluates."""
    known = _deja_setup_bound_derived()
    for d in _deja_setup_listed_unbound(_deja_setup_named_globals()):
        known.add(id(d))
    return known


def _deja_setup_bound_derived():
    """The ids of the derived values bound to a global name of the script; one made elsewhere (inside a helper
    function) has none, so the checker cannot tell who reads it."""
    bound = set()
    if _registry.predicates:
        for value in _registry.predicates[0].fn.__globals__.values():
            if isinstance(value, Derived):
                bound.add(id(value))
    return bound


def _deja_setup_unbound_derived():
    """How many derived values the checker cannot tell the readers of (see _deja_setup_known_derived)."""
    known = _deja_setup_known_derived()
    count = 0
    for d in _registry.derived:
        if id(d) not in known:
            count += 1
    return count


def _deja_setup_activate(predicates, derived):
    """Evaluates only the predicates whose indexes are listed and refreshes only the listed derived values after each
    event (the others' results are reused from the stored history): the others are never dirty, so never evaluated."""
    keep = set(predicates)
    index = 0
    for p in _registry.predicates:
        if index not in keep:
            p.dirty = False
        index += 1
    wanted = set(derived)
    # A derived value made elsewhere than at the top level (inside a helper function) has no global name. Unless
    # _deja_setup_globals lists it under a name of its own, the checker cannot tell who reads it: it is refreshed as
    # in a check of every predicate.
    known = _deja_setup_known_derived()
    eager = []
    for d in _registry.derived:
        if d.name in wanted or id(d) not in known:
            eager.append(d)
    _state.eager_derived = eager


def _deja_setup_record(on):
    """Whether derived values note the changes of their values and reads from now on (see Derived._record)."""
    _state.recording = bool(on)


def _deja_setup_recorded():
    """What each derived value recorded: (name, why it cannot be stored or None, positions, reprs of the values or
    None where unchanged, names read or None where unchanged), in declaration order."""
    out = []
    for d in _registry.derived:
        positions = []
        values = []
        reads = []
        for position, text, names in d._changes:
            positions.append(position)
            values.append(text)
            reads.append(names)
        out.append((d.name, d._unstorable, positions, values, reads))
    return out


_clock_source = _Source("clock")


def _deja_setup_literals(values):
    """The values whose reprs are the texts in values (None stays None), as a list, or why they cannot be read: a
    SyntaxError. The checker passes only texts made of literals (see ScriptEvaluator.literal), so evaluating them
    calls nothing but set and frozenset; many at once, since compiling each alone costs more than reading it. (The ast module's
    literal_eval would do the same, but importing it costs seconds in a new context.) The same texts always give the
    same values: a check stores a derived value's texts only if this gives back each exactly
    (_deja_setup_reads_back), so that a re-check can read them without comparing again."""
    parsed = [None] * len(values)
    texts = []
    for i in range(len(values)):
        if values[i] is not None:
            texts.append(i)
    at = 0
    while at < len(texts):
        chunk = texts[at:at + 256]
        source = ["("]
        for i in chunk:
            source.append(values[i])
            source.append(",\n")
        source.append(")")
        try:
            read = eval("".join(source), {"__builtins__": {}, "set": set, "frozenset": frozenset}, {})
        except Exception as e:
            return "a stored value is not a literal (%s)" % type(e).__name__
        if type(read) is not tuple or len(read) != len(chunk):
            return "the stored values do not read back one by one"
        for k in range(len(chunk)):
            parsed[chunk[k]] = read[k]
        at += 256
    return parsed


def _deja_setup_reads_back(values):
    """None if _deja_setup_literals gives back, for each text in values, a value whose repr is that text; else why
    not. Checked before the texts are stored, once, instead of at every re-check that reads them."""
    parsed = _deja_setup_literals(values)
    if isinstance(parsed, str):
        return parsed
    for i in range(len(values)):
        if values[i] is not None and repr(parsed[i]) != values[i]:
            return "a value does not read back the same: " + values[i][:60]
    return None


def _deja_setup_serve(name, reads):
    """Prepares the derived value name to be served from the stored history (_deja_setup_commit_served): returns its
    index in _registry.derived and, for each tuple of names in reads (what it read at one of its stored changes),
    the set of sources they name, for _steps; or why it cannot be served. Its values reach _steps already read
    back: by the checker, or by _deja_setup_literals for texts the checker does not read itself. The check that
    stored them made sure that they read back exactly (_deja_setup_reads_back)."""
    index = None
    for i in range(len(_registry.derived)):
        if _registry.derived[i].name == name:
            index = i
    if index is None:
        return "the script declares no derived value " + name
    sources = {"event": _state.event_source, "nodes": nodes._source, "clock": _clock_source}
    for t in _registry.tables:
        sources[t.name] = t._source
    for d in _registry.derived:
        sources[d.name] = d._source
    deps = []
    for names in reads:
        read = set()
        for n in names:
            source = sources.get(n)
            if source is None:
                return "it read %s, which the script no longer declares" % n
            read.add(source)
        deps.append(read)
    return (index, deps)


class _Discard:
    """A stream that writes nowhere: a predicate's output while it is probed (_deja_setup_probe)."""

    def write(self, text):
        return len(text)

    def flush(self):
        pass


# What _deja_setup_probe changed, for _deja_setup_probe_restore: the served derived values and their value, history
# and dirty flag before it (clean while probed: they are never evaluated), and the streams it replaced.
_probe_saved = []
# The outcomes a probe numbered so far, by witnesses (see _deja_setup_probe).
_probe_outcomes = {}


def _deja_setup_probe(index, derived, first, *flat):
    """Evaluates the predicate at index on each combination of values of the served derived values listed (indexes
    in _registry.derived), flat holding one value per derived value for each combination in turn: what it reads and
    nothing else (the checker probes only a predicate that reads served values alone). Returns, per combination, the
    number of its outcome, the same for combinations that violate it with the same witnesses, or -1 where it raised;
    the numbers go on from the call before unless first (the checker hands a probe over in chunks). Nothing it reads
    is linked, no finding is made and its output is discarded; _deja_setup_probe_restore puts back what this changed,
    also after an interrupt."""
    global _reading
    import sys
    p = _registry.predicates[index]
    values = []
    saved = []
    for i in derived:
        d = _registry.derived[i]
        values.append(d)
        saved.append((d._value, d._history, d.dirty))
        d.dirty = False
    _probe_saved.append((values, saved, sys.stdout, sys.stderr))
    sys.stdout = sys.stderr = _Discard()
    width = len(values)
    outcomes = _probe_outcomes
    if first:
        outcomes.clear()
    out = []
    _state.current = p.name
    for at in range(0, len(flat), width):
        for j in range(width):
            d = values[j]
            d._value = flat[at + j]
            d._history = [d._value]
        _reading = set()
        p.evaluations += 1
        try:
            key = frozenset(_witnesses(p.fn()))
            outcome = outcomes.get(key)
            if outcome is None:
                outcome = outcomes[key] = len(outcomes)
        except (Exception, SystemExit):
            outcome = -1
        _reading = None
        out.append(outcome)
    _deja_setup_probe_restore()
    return tuple(out)


def _deja_setup_probe_restore():
    """Puts back what _deja_setup_probe changed, if anything."""
    global _reading
    import sys
    _reading = None
    _state.current = None
    while _probe_saved:
        values, saved, out, err = _probe_saved.pop()
        for k in range(len(values)):
            values[k]._value, values[k]._history, values[k].dirty = saved[k]
        sys.stdout, sys.stderr = out, err


def _deja_setup_keeps(names):
    """How many versions each of the derived values names keeps (keep_versions), in order; 0 for an undeclared one."""
    keeps = {d.name: d.keep for d in _registry.derived}
    return tuple(keeps.get(name, 0) for name in names)


def _deja_setup_commit_served(names):
    """Serves the listed derived values from the stored history, whose changes _steps brings: they are never
    evaluated."""
    for d in _registry.derived:
        if d.name in names:
            d.dirty = False


def _deja_setup_counts():
    """Evaluations per predicate and per derived value, for tests and profiling."""
    out = {}
    for p in _registry.predicates:
        out[p.name] = p.evaluations
    for d in _registry.derived:
        out[d.name] = d._evaluations
    return out


def _make_tuple(*items):
    return tuple(items)


def _make_dict(*flat):
    return {flat[i]: flat[i + 1] for i in range(0, len(flat), 2)}


def _make_list(*items):
    return list(items)


def _make_set(*items):
    return set(items)


def _make_frozenset(items=()):
    return frozenset(items)
