# Eventually predicates whose aux function reads a derived value that changes at every event, as chord.py's and
# store.py's read their clock, for PredicateReuseIT: a re-check that serves those values hands Python every event
# and takes the aux values only before an event that can end a span, one of whose predicates reads a served value
# and the other a table; its report (aux values at each span's end, and reads, included) must be a fresh check's.
# A re-check that reads served values only merges the changes of those that only aux values read and that keep one
# version (seen, label, last_change) between the steps where something is due; ticks keeps three, which an aux value
# reads, so its changes reach Python one by one.
# The labels' values are ones the checker reads back itself (integers, big ones too, strings with and without quotes and
# escapes, True, False, None) and others Python reads (floats, tuples).
from deja import table, derived, eventually, stats

# Declared as in several.py, whose check the trace stores: the re-check replays nothing and projects no column away.
Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode",
              columns=["slot", "accepted_round", "accepted_value", "collect_round", "majority"],
              keep_versions={"accepted_round": 2})


@derived
def seen():
    return stats.events()


@derived
def accepted():
    return tuple(sorted((a.node, a.slot, a.accepted_round) for a in Agent if a.accepted_round is not None))


@derived
def collect_sum():
    return sum(a.collect_round or 0 for a in Agent)


@derived
def last_change():
    before = last_change.versions()
    if before and before[0][0] == accepted():
        return before[0]
    return (accepted(), seen())


@derived
def label():
    n = seen() // 50
    return [None, True, False, n * 10 ** 20, -n, "it's %d" % n, 'say "%d"' % n, "tab\t%d\\" % n, "é %d" % n,
            n / 3, (n, "x")][n % 11]


@derived(keep_versions=3)
def ticks():
    return stats.events()


def recent_ticks():
    return ticks.versions()


def waited():
    """Events since the accepted rounds last changed."""
    return seen() - last_change()[1]


@derived
def parity():
    return collect_sum() % 2


@eventually(aux=[waited, label])
def collect_even():
    """Turns false and true again many times over the run, so that many spans end; reads a served value, which
    reads another that nothing evaluated reads (only what that one read is served, for the report's reads)."""
    return parity() == 0


@eventually(aux=[waited])
def collect_odd():
    """The other way round, over the table itself."""
    return sum(a.collect_round or 0 for a in Agent) % 2 == 1


@eventually(aux=[recent_ticks])
def collect_even_too():
    """As collect_even, with an aux value that reads the last three versions of a value changing at every event."""
    return parity() == 0
