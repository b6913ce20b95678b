# A predicate that writes a mutable global and a derived value that reads it but cannot be stored, for
# PredicateReuseIT: a re-check that evaluates the derived value must evaluate the predicate too.
from deja import table, derived, always

# Declared as in several.py, whose check the trace stores: the re-check replays nothing and projects no column away.
Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode",
              columns=["slot", "accepted_round", "accepted_value", "collect_round", "majority"],
              keep_versions={"accepted_round": 2})

_seen = {"polls": 0}


@derived
def polls():
    """How many rows counted has seen so far, with a nan: a value without a literal form, never stored."""
    return (len(Agent) * 0 + _seen["polls"], float("nan"))


@always
def counted():
    _seen["polls"] += len(Agent)
    return True


@always(aux=[polls])
def few_polls():
    return polls()[0] < 50
