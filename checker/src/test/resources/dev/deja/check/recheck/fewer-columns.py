# The base script's table declared with one column of the five its stored history holds, and a predicate that counts
# its own evaluations in a mutable global, for PredicateReuseIT: a step whose stored change alters only columns no
# longer declared changes nothing this script sees, so a re-check from the history must not evaluate it there.
from deja import table, always

Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode", columns=["majority"])

_seen = {"evaluations": 0}


@always
def counted():
    """Holds while it has been evaluated at most 10 times: once per change of Agent's declared column, as in a replay."""
    _seen["evaluations"] += 1
    return len(Agent) >= 0 and _seen["evaluations"] <= 10
