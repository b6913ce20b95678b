# MaceMC's AllNodes for Chord (table 1): eventually every live node is reachable from every other by following
# successor pointers. For deja explore --walks; alone in its script, so that the safety predicates of
# scripts/chord.py do not end a path before its liveness can be judged.
from deja import table, eventually

Node = table("Node", cls="dev.deja.examples.chord.ChordNode",
             columns=["key", "joined", "failed", "predecessor", "successor"])


def live():
    return {n.node: n for n in Node if n.joined and not n.failed}


def unreachable():
    """The live nodes not on the successor cycle of the smallest live node (empty when all are)."""
    nodes = live()
    if not nodes:
        return []
    start = min(nodes)
    seen = []
    at = start
    while at in nodes and at not in seen:
        seen.append(at)
        at = nodes[at].successor
    return sorted(set(nodes) - set(seen)) if at == start else sorted(set(nodes) - set(seen)) + ["(no cycle)"]


@eventually(aux=[unreachable])
def all_nodes():
    """Every live node is reachable from every other by successor pointers: they form one cycle."""
    return not unreachable()
