# Predicates for the replicated store example (dev.deja.examples.store), after BitVault in the WiDS Checker
# paper, section 4.3. All three are liveness properties, as in the paper:
#   index_ownership     every object's owner (its successor among the live nodes) holds its index entry
#   complete_reference  the owner's entry lists exactly the live nodes holding a replica (no dangling
#                       reference, no orphan replica)
#   replica_degree      every object has exactly 3 replicas
# The live nodes are those a majority of the nodes' membership views hold. Spans open and close all the time while
# objects are written, moved and repaired, and when membership changes. Each span carries
#   stabilized  ms the oldest problem behind it has lasted since membership last changed (the paper's
#               stabilization measure); read it in auxAtEnd, at the span's last false event
#   problems    what is wrong, per object
# A span whose stabilized value at its end reached 2.5 s is a real bug (repair takes up to about 1.5 s); shorter
# spans are work in flight or churn.
#   ./deja simulate store --bug balance-race --seed 4 --out t && ./deja check t scripts/store.py
#   ./deja simulate store --bug transient-failure --seed 7 --crash-rate 0.0005 --restart-delay 1000ms --out t
from deja import table, derived, eventually, event

DEGREE = 3

Node = table("Node", cls="dev.deja.examples.store.StoreNode", columns=["position", "view", "view_changed_at"])
Entry = table("Entry", cls="dev.deja.examples.store.IndexEntry", columns=["object_id", "key", "holders"])
Replica = table("Replica", cls="dev.deja.examples.store.Replica", columns=["object_id", "key"])


@derived
def ring():
    """The live nodes as (position, node), in ring order."""
    nodes = list(Node)
    votes = {}
    for n in nodes:
        for member in n.view:
            votes[member] = votes.get(member, 0) + 1
    return tuple(sorted((n.position, n.node) for n in nodes if 2 * votes.get(n.node, 0) > len(nodes)))


def owner(key):
    live = ring()
    return next((node for position, node in live if position >= key), live[0][1])


@derived
def objects():
    """Every object with a replica on a live node: id -> (owner, holders, the owner's indexed holders or None)."""
    live = set(node for _, node in ring())
    found = {}
    for r in Replica:
        if r.node in live:
            found.setdefault(r.object_id, (r.key, set()))[1].add(r.node)
    entries = {(e.node, e.object_id): frozenset(e.holders) for e in Entry}
    return {obj: (owner(key), frozenset(holders), entries.get((owner(key), obj)))
            for obj, (key, holders) in found.items()}


@derived
def ownership_problems():
    return {obj: "owner %s has no index entry" % o for obj, (o, _, indexed) in objects().items() if indexed is None}


@derived
def reference_problems():
    out = {}
    for obj, (o, holders, indexed) in objects().items():
        if indexed is None:
            out[obj] = "orphan replicas on %s (owner %s has no entry)" % (sorted(holders), o)
        elif indexed != holders:
            out[obj] = "owner %s: dangling %s, orphans on %s" % (o, sorted(indexed - holders), sorted(holders - indexed))
    return out


@derived
def degree_problems():
    return {obj: "%d replicas on %s" % (len(h), sorted(h)) for obj, (_, h, _) in objects().items() if len(h) != DEGREE}


@derived
def clock():
    """The latest node clock so far (events replay in causal order, so the nodes' clocks interleave)."""
    earlier = clock.versions()
    return max(event.clock, earlier[0]) if earlier else event.clock


@derived
def membership_changed_at():
    return max(n.view_changed_at for n in Node)


def tracked(problems):
    """The aux values of a predicate that holds while problems() is empty: stabilized and problems. The checker asks
    for them at every event while a span is open, so they only read derived values kept up to date."""
    def since():
        """object -> the clock at which its current problem began."""
        earlier = started.versions()
        earlier = earlier[0] if earlier else {}
        return {obj: earlier[obj] if obj in earlier else clock() for obj in problems()}
    since.__name__ = problems.name.replace("problems", "since")
    started = derived(since)

    def listing():
        return tuple(sorted("%s: %s" % item for item in problems().items()))
    listing.__name__ = problems.name.replace("problems", "listing")
    listed = derived(listing)

    def stabilized():
        begun = started()
        return max(0, clock() - max(min(begun.values()), membership_changed_at())) if begun else 0

    def problems_now():
        return listed()
    problems_now.__name__ = "problems"
    return [stabilized, problems_now]


@eventually(aux=tracked(ownership_problems))
def index_ownership():
    return not ownership_problems()


@eventually(aux=tracked(reference_problems))
def complete_reference():
    return not reference_problems()


@eventually(aux=tracked(degree_problems))
def replica_degree():
    return not degree_problems()
