# Predicates for the Paxos example (dev.deja.examples.paxos), after the WiDS Checker paper, section 4.1.
#   ./deja check TRACE scripts/paxos.py
# A node may run several independent consensus instances ("slots", --arg slots=K); each is one row per node.
from deja import table, derived, always, forall

# One row per Paxos process and slot (each process is both leader and agent).
Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode",
              columns=["slot", "accepted_round", "accepted_value", "collect_round", "majority"],
              keep_versions={"accepted_round": 2})


def chosen():
    """Per slot, the highest round in which a majority of agents accepted one value: {slot: (round, value)}."""
    votes = {}
    majority = None
    for a in Agent:
        majority = a.majority
        if a.accepted_value is not None:
            key = (a.slot, a.accepted_round, a.accepted_value)
            votes[key] = votes.get(key, 0) + 1
    best = {}
    for (slot, rnd, value), count in votes.items():
        if count >= majority and (slot not in best or rnd > best[slot][0]):
            best[slot] = (rnd, value)
    return best


@derived(keep_versions=2)
def decision():
    """Per slot, the value decided so far: {slot: value}. A slot keeps its decision until another value reaches a
    majority in a higher round."""
    earlier = decision.versions()
    decided = dict(earlier[0]) if earlier else {}
    for slot, (rnd, value) in chosen().items():
        decided[slot] = value
    return decided


def changed():
    """The slots whose decision just changed, as (slot, before, now)."""
    v = decision.versions()
    if len(v) < 2:
        return []
    return [(slot, before, v[0].get(slot)) for slot, before in sorted(v[1].items()) if v[0].get(slot) != before]


@always(aux=[changed])
def global_consistency():
    """Once decided, a slot's decision never changes."""
    v = decision.versions()          # newest first
    return len(v) < 2 or all(v[0].get(slot) == before for slot, before in v[1].items())


def agent_rounds():
    """Every agent whose accepted round decreased, as (node, slot, now, before)."""
    return sorted((a.node, a.slot) + tuple(a.versions("accepted_round")) for a in Agent
                  if len(a.versions("accepted_round")) == 2
                  and a.versions("accepted_round")[0] < a.versions("accepted_round")[1])


@always(aux=[agent_rounds])
def accepted_round_increasing():
    """An agent's accepted round never decreases."""
    return forall(Agent, lambda a: len(a.versions("accepted_round")) < 2
                  or a.versions("accepted_round")[0] >= a.versions("accepted_round")[1])
