# Predicates that read served derived values alone, for PredicateReuseIT. tick changes at every event among four
# values, so an edited predicate over it is probed once per combination of values and evaluated only where its outcome
# changes (steady: never) or where it raises (tick_known raises at tick 3, each raise a finding); tick_low's spans end
# many times, each with its aux values as a fresh check takes them.
from deja import table, derived, always, eventually, stats

# Declared as in several.py, whose check the trace stores: the re-check replays nothing and projects no column away.
Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode",
              columns=["slot", "accepted_round", "accepted_value", "collect_round", "majority"],
              keep_versions={"accepted_round": 2})


@derived
def seen():
    return stats.events()


@derived
def tick():
    """Changes at every event, among four values."""
    return stats.events() % 4


@derived
def accepting():
    """How many agents have accepted a value."""
    return sum(1 for a in Agent if a.accepted_value is not None)


@always
def tick_known():
    """Raises at tick 3, violated at tick 2 (declared first: an edit below it keeps the lines its errors show)."""
    return {0: True, 1: True, 2: False}[tick()]


@always
def steady():
    """Holds whatever the values: its outcome never changes."""
    return tick() < 4 and accepting() >= 0


@eventually(aux=[seen, tick])
def tick_low():
    """Violated at tick 3 once two agents have accepted a value."""
    return tick() != 3 or accepting() < 2
