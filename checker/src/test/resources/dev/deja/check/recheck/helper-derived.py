# A derived value made inside a helper function, which has no global name, read as an aux value, for
# PredicateReuseIT: a re-check must refresh it at the same steps as a check of every predicate.
from deja import table, derived, always

# Declared as in several.py, whose check the trace stores: the re-check replays nothing and projects no column away.
Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode",
              columns=["slot", "accepted_round", "accepted_value", "collect_round", "majority"],
              keep_versions={"accepted_round": 2})


@derived
def max_round():
    best = 0
    for a in Agent:
        if a.accepted_round is not None and a.accepted_round > best:
            best = a.accepted_round
    return best


def counting(source):
    """A derived value made here: how many times source changed, as (count, its latest value)."""
    def changes():
        before = made.versions()
        value = source()
        if not before:
            return (0, value)
        count, last = before[0]
        return (count + 1, value) if value != last else (count, last)
    changes.__name__ = source.name + "_changes"
    made = derived(changes)
    return made


@always(aux=[counting(max_round)])
def rounds_small():
    return max_round() < 2
