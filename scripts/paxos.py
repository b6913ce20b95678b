# Predicates for the Paxos example (dev.deja.examples.paxos), after the WiDS Checker paper, section 4.1.
#   ./deja check TRACE scripts/paxos.py
from deja import table, derived, always, forall, event

# One row per Paxos process (each is both leader and agent).
Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode",
              columns=["accepted_round", "accepted_value", "collect_round", "majority"],
              keep_versions={"accepted_round": 2})


@derived(keep_versions=2)
def decision():
    """The value accepted by a majority of agents in one round (the highest such round), or None.
    Once a value was decided it stays the decision until another value reaches a majority."""
    votes = {}
    majority = None
    for a in Agent:
        majority = a.majority
        if a.accepted_value is not None:
            key = (a.accepted_round, a.accepted_value)
            votes[key] = votes.get(key, 0) + 1
    decided = [key for key, count in votes.items() if majority and count >= majority]
    if decided:
        return max(decided)[1]
    earlier = decision.versions()
    return earlier[0] if earlier else None


@derived
def chosen_round():
    """The highest round in which a majority accepted one value (for the report)."""
    votes = {}
    majority = None
    for a in Agent:
        majority = a.majority
        if a.accepted_value is not None:
            votes[(a.accepted_round, a.accepted_value)] = votes.get((a.accepted_round, a.accepted_value), 0) + 1
    rounds = [r for (r, v), count in votes.items() if majority and count >= majority]
    return max(rounds) if rounds else None


@always(aux=[decision, chosen_round])
def global_consistency():
    """Once decided, the decision never changes."""
    v = decision.versions()          # newest first
    return len(v) < 2 or v[1] is None or v[0] == v[1]


def agent_rounds():
    """Every agent's accepted rounds, newest first, where one decreased."""
    return {a.node: a.versions("accepted_round") for a in Agent
            if len(a.versions("accepted_round")) == 2
            and a.versions("accepted_round")[0] < a.versions("accepted_round")[1]}


@always(aux=[agent_rounds])
def accepted_round_increasing():
    """An agent's accepted round never decreases."""
    return forall(Agent, lambda a: len(a.versions("accepted_round")) < 2
                  or a.versions("accepted_round")[0] >= a.versions("accepted_round")[1])
