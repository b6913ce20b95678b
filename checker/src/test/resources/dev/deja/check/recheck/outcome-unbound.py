# A predicate over served values alone whose aux value is a derived value made in a helper function, for
# PredicateReuseIT: that one has no global name, counts the changes of tick it saw, and is refreshed after every step a
# re-check hands to Python, so the edited predicate is not probed (it would get fewer steps than tick's changes) and
# the counts at each span's end are a fresh check's.
from deja import table, derived, eventually, stats

# Declared as in several.py, whose check the trace stores: the re-check replays nothing and projects no column away.
Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode",
              columns=["slot", "accepted_round", "accepted_value", "collect_round", "majority"],
              keep_versions={"accepted_round": 2})


@derived
def tick():
    """Changes at every event, among four values."""
    return stats.events() % 4


@derived
def accepting():
    """How many agents have accepted a value."""
    return sum(1 for a in Agent if a.accepted_value is not None)


def counted(value):
    """Aux values made in a helper: how many changes of value it saw."""
    def changes_seen():
        value()
        before = made.versions()
        return before[0] + 1 if before else 0
    made = derived(changes_seen)
    return [made]


@eventually(aux=counted(tick))
def tick_low():
    """Violated at tick 3 once two agents have accepted a value."""
    return tick() != 3 or accepting() < 2
