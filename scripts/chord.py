# Predicates for the Chord example (dev.deja.examples.chord), after the WiDS Checker paper, section 4.4
# (Macedon-Chord), plus the two safety properties CrystalBall (2008, section 5.2.2) checked on Mace's Chord.
# The scenario: 10 nodes join at once through n1, n9 fails at 3 s, the run ends at 6 s.
#   ./deja simulate chord --bug finger-boundary --seed 0 --out t && ./deja check t scripts/chord.py
#
# A ring is only right once it has stabilized, so the ring properties are @eventually: every join and the
# failure open spans that close when stabilization repairs the ring. `stabilized` (the paper's aux value) is
# 0 at a join or failure and grows to 1 over STABLE_AFTER_MS; a span is a real violation when it is still
# open at the end of the run, or when its predicate was still false with `stabilized` at 1 (its auxAtEnd).
# The two *_once_stable predicates say the same as safety properties, so that `deja check` fails on them.
from deja import table, derived, always, eventually, forall, event

RING_SIZE = 4096          # keys on the ring: 2^12 (ChordRing.SIZE), finger i starts at key + 2^i
STABLE_AFTER_MS = 2000    # the correct protocol repairs the ring and its fingers well within this

Node = table("Node", cls="dev.deja.examples.chord.ChordNode",
             columns=["key", "joined", "failed", "predecessor", "successor", "successorsSuccessor", "fingers"])


@derived
def members():
    """The live nodes (joined, not failed) as (key, id), sorted by key."""
    return tuple(sorted((n.key, n.node) for n in Node if n.joined and not n.failed))


@derived
def clock():
    """The latest clock of any event so far: replay interleaves nodes, so event.clock can step back a little."""
    before = clock.versions()
    return max(event.clock, before[0]) if before else event.clock


@derived
def last_change():
    """(live node ids, clock) at the latest join or failure."""
    ids = tuple(sorted(node for key, node in members()))
    before = last_change.versions()
    if before and before[0][0] == ids:
        return before[0]
    return (ids, clock())


def stabilized():
    """0 at a join or failure, growing to 1 once the live set has stayed the same for STABLE_AFTER_MS."""
    return min(1.0, (clock() - last_change()[1]) / STABLE_AFTER_MS)


def live_rows():
    return [n for n in Node if n.joined and not n.failed]


def owner(key, ring):
    """The first live node at or after key, going round the ring."""
    for k, node in ring:
        if k >= key:
            return node
    return ring[0][1]


def between(x, a, b):
    """x strictly inside the clockwise arc from a to b (the whole ring but a when a == b)."""
    return a < x < b if a < b else x != a and (x > a or x < b)


@derived
def ring_problems():
    """Live nodes whose predecessor is missing, failed, or has another successor (the first five)."""
    rows = {n.node: n for n in Node}
    live = set(node for key, node in members())
    wrong = []
    for n in live_rows():
        if n.predecessor not in live:
            wrong.append("%s: predecessor %s is not live" % (n.node, n.predecessor))
        elif rows[n.predecessor].successor != n.node:
            wrong.append("%s: predecessor %s has successor %s" % (n.node, n.predecessor, rows[n.predecessor].successor))
    return tuple(wrong[:5])


@derived
def finger_problems():
    """Fingers of live nodes that are not the first live node at or after their start (the first five)."""
    ring = members()
    wrong = []
    for n in live_rows():
        for i, finger in enumerate(n.fingers):
            should = owner((n.key + (1 << i)) % RING_SIZE, ring)
            if finger != should:
                wrong.append("%s: finger %d is %s, should be %s" % (n.node, i, finger, should))
                if len(wrong) == 5:
                    return tuple(wrong)
    return tuple(wrong)


@derived
def self_pointers():
    """Live nodes whose predecessor is itself but not their successor, or the other way round."""
    return tuple("%s: predecessor %s, successor %s" % (n.node, n.predecessor, n.successor) for n in live_rows()
                 if (n.predecessor == n.node) != (n.successor == n.node))


@eventually(aux=[stabilized, ring_problems])
def ring_consistency():
    """The paper's RingConsistency: if x believes y is its predecessor, y has x as its successor. Asked of
    every live node, so a node whose predecessor is missing or failed is not consistent either."""
    return not ring_problems()


@eventually(aux=[stabilized, finger_problems])
def fingers_correct():
    """Finger i of every live node is the first live node at or after its start, key + 2^i."""
    return not finger_problems()


@always(aux=[stabilized, ring_problems])
def ring_consistent_once_stable():
    """Bounded liveness: ring_consistency holds whenever the live set has not changed for STABLE_AFTER_MS."""
    return stabilized() < 1 or not ring_problems()


@always(aux=[stabilized, finger_problems])
def fingers_correct_once_stable():
    """Bounded liveness: fingers_correct holds whenever the live set has not changed for STABLE_AFTER_MS."""
    return stabilized() < 1 or not finger_problems()


@always(aux=[stabilized, self_pointers])
def pred_self_iff_succ_self():
    """A node's predecessor is itself exactly when its successor is (a ring of one)."""
    return not self_pointers()


@eventually(aux=[stabilized])
def node_ordering():
    """No node's successor lies between its predecessor and itself."""
    keys = dict((node, key) for key, node in members())
    return forall(live_rows(), lambda n: n.predecessor not in keys or n.successor not in keys
                  or n.successor == n.node or not between(keys[n.successor], keys[n.predecessor], n.key))
