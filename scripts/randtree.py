# Predicates for the RandTree example (dev.deja.examples.randtree): Mace's random overlay tree, with the
# properties MaceMC (NSDI'07) and CrystalBall (NSDI'09, section 5.2.1) checked on it.
#   safety:   children and siblings disjoint, the root has no siblings, the root is nobody's child or sibling,
#             no loops along parent pointers, a joined node has its recovery timer scheduled
#   liveness: exactly one root, with how long the tree had been settled as the stabilization measure
#   ./deja simulate randtree --bug sibling-not-removed --seed S ... --out t && ./deja check t scripts/randtree.py
from deja import table, derived, always, eventually, forall, exists, event

# One row per RandTree node; state is INIT, JOINING or JOINED, node sets are sorted lists of ids.
Tree = table("Tree", cls="dev.deja.examples.randtree.RandTreeNode",
             columns=["state", "root", "parent", "children", "siblings", "recovery_timer_scheduled"])


def joined(n):
    return n.state == "JOINED"


def is_root(n):
    return joined(n) and n.root == n.node


def overlaps():
    """Each node's entries that are both child and sibling."""
    return {n.node: sorted(set(n.children) & set(n.siblings)) for n in Tree if set(n.children) & set(n.siblings)}


@always(aux=[overlaps])
def children_siblings_disjoint():
    """No node lists another as both its child and its sibling (CrystalBall 1.2)."""
    return forall(Tree, lambda n: not set(n.children) & set(n.siblings))


def roots_with_siblings():
    return {n.node: n.siblings for n in Tree if is_root(n) and n.siblings}


@always(aux=[roots_with_siblings])
def root_has_no_siblings():
    """A root has no siblings (CrystalBall 5.2.1)."""
    return forall(Tree, lambda n: not is_root(n) or not n.siblings)


def root_listed():
    """The joined nodes that list their root as a child or sibling, with that root."""
    return {n.node: n.root for n in Tree if joined(n) and (n.root in n.children or n.root in n.siblings)}


@always(aux=[root_listed])
def root_not_a_child():
    """No joined node lists its root as a child or a sibling (CrystalBall 5.2.1)."""
    return forall(Tree, lambda n: not joined(n) or (n.root not in n.children and n.root not in n.siblings))


def loops():
    """The joined nodes whose parent pointers come back round, with the loop."""
    by_node = {n.node: n for n in Tree}
    found = {}
    for n in Tree:
        path = []
        at = n
        while at is not None and joined(at) and at.node not in path:
            path.append(at.node)
            at = by_node.get(at.parent)
        if at is not None and joined(at) and at.node in path:
            found[n.node] = path[path.index(at.node):]
    return found


@always(aux=[loops])
def no_parent_loops():
    """Following parent pointers from a joined node ends at a root or a node that is not joined (MaceMC)."""
    return not loops()


def without_timer():
    return sorted(n.node for n in Tree if joined(n) and not n.recovery_timer_scheduled)


@always(aux=[without_timer])
def recovery_timer_scheduled():
    """A joined node has its recovery timer scheduled (CrystalBall 5.2.1, Mace's 'timers' property)."""
    return forall(Tree, lambda n: not joined(n) or n.recovery_timer_scheduled)


@derived
def settled_since():
    """The clock (ms) of the last event at which a node (re)started or some node was not joined."""
    if event.type in ("start", "crash") or exists(Tree, lambda n: not joined(n)):
        return event.clock
    before = settled_since.versions()
    return before[0] if before else event.clock


@derived
def stable_ms():
    """How long the tree has been settled (every node joined, no restart): the stabilization measure."""
    return event.clock - settled_since()


@derived
def roots():
    return sorted(n.node for n in Tree if is_root(n))


@eventually(aux=[roots, stable_ms])
def one_root():
    """Exactly one joined node is its own root (while any node is joined). Expect short spans while nodes
    join, fail and hand the root over; a span with a large stable_ms at its end is a tree that stays split."""
    return len(roots()) == 1 or not exists(Tree, joined)
