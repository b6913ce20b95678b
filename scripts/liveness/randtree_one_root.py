# RandTree's liveness predicate alone, for deja explore --walks: scripts/randtree.py has it too, beside safety
# predicates that would end a path before its liveness can be judged. MaceMC's OneRoot: eventually exactly one
# joined node is its own root.
from deja import table, eventually, exists

Tree = table("Tree", cls="dev.deja.examples.randtree.RandTreeNode",
             columns=["state", "root", "parent", "children", "siblings", "recovery_timer_scheduled"])


def joined(n):
    return n.state == "JOINED"


def roots():
    return sorted(n.node for n in Tree if joined(n) and n.root == n.node)


@eventually(aux=[roots])
def one_root():
    """Exactly one joined node is its own root (while any node is joined)."""
    return len(roots()) == 1 or not exists(Tree, joined)
