# A derived value that keeps state in a mutable global, as the lock server's enough_time does, for PredicateReuseIT.
from deja import table, derived, always

# Declared as in several.py, whose check the trace stores: the re-check replays nothing and projects no column away.
Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode",
              columns=["slot", "accepted_round", "accepted_value", "collect_round", "majority"],
              keep_versions={"accepted_round": 2})

_changes = {"last": None, "count": 0}


@derived
def max_round():
    best = 0
    for a in Agent:
        if a.accepted_round is not None and a.accepted_round > best:
            best = a.accepted_round
    return best


@derived
def round_changes():
    """How many times max_round changed so far: state kept in a mutable global."""
    m = max_round()
    if m != _changes["last"]:
        _changes["last"] = m
        _changes["count"] += 1
    return _changes["count"]


@derived
def many_changes():
    return round_changes() > 1


@always(aux=[round_changes, many_changes])
def few_round_changes():
    return round_changes() < 2


@always
def counted():
    return _changes["count"] >= 0
