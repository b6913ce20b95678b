# Several predicates over the Paxos example's state, for the per-predicate reuse tests (PredicateReuseIT).
from deja import table, derived, always, eventually, forall, stats

Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode",
              columns=["slot", "accepted_round", "accepted_value", "collect_round", "majority"],
              keep_versions={"accepted_round": 2})

LIMIT = 2


def chosen():
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
    earlier = decision.versions()
    decided = dict(earlier[0]) if earlier else {}
    for slot, (rnd, value) in chosen().items():
        decided[slot] = value
    return decided


@derived
def max_round():
    best = 0
    for a in Agent:
        if a.accepted_round is not None and a.accepted_round > best:
            best = a.accepted_round
    return best


@always
def global_consistency():
    v = decision.versions()
    return len(v) < 2 or all(v[0].get(slot) == before for slot, before in v[1].items())


@always(aux=[max_round])
def rounds_small():
    return max_round() < LIMIT


@eventually
def all_accepted():
    return forall(Agent, lambda a: a.accepted_value is not None)


@always
def early_events():
    return stats.events() < 100


@always
def accepted_round_increasing():
    return forall(Agent, lambda a: len(a.versions("accepted_round")) < 2
                  or a.versions("accepted_round")[0] >= a.versions("accepted_round")[1])
