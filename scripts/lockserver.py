# Predicates for the lock-server example (dev.deja.examples.lockserver), after the WiDS Checker paper, section 4.2.
#   ./deja simulate lockserver --bug release-retry-livelock --seed 3 --virtual-time 8s --out t
#   ./deja check t scripts/lockserver.py
#
# If the lock service is free of deadlock and livelock, its pending queue (the locks whose revokes are in flight)
# is eventually empty. Under load it is non-empty again and again for short spans, so queue_empty reports many
# violations, most of them false alarms. The aux value enough_time says how long (ms, on the server's clock) the
# queue has kept its size since the size last changed; read at a span's end, a value above ENOUGH_TIME_MILLIS
# (suspect=True) marks the spans worth inspecting: the dark ones in the viewer's stripe. blocked_revokes names
# the clients whose revoke waits for a release of the same lock, the paper's livelock.
from deja import table, derived, eventually, now

ENOUGH_TIME_MILLIS = 1000

Server = table("Server", cls="dev.deja.examples.lockserver.LockServer", columns=["pending_locks"])
# Each client's state per lock: the mode it caches, its users, the flags of the transactions in flight.
ClientLock = table("ClientLock", cls="dev.deja.examples.lockserver.CachedLock",
                   columns=["lock", "cached", "local_users", "release_pending", "revoke_pending", "release_denials"])


@derived
def pending_locks():
    """The locks in the server's pending queue, oldest first."""
    return [lock for s in Server for lock in s.pending_locks]


_size = {"size": 0, "since": None}


@derived
def enough_time():
    """How long (server clock, ms) the pending queue has kept its size since the size last changed; 0 when empty."""
    size, clock = len(pending_locks()), now("server")
    if size != _size["size"]:
        _size["size"], _size["since"] = size, clock
    return clock - _size["since"] if size and clock is not None else 0


@derived
def suspect():
    """Whether the queue has kept its size long enough to be more than a transaction in flight."""
    return enough_time() > ENOUGH_TIME_MILLIS


@derived
def blocked_revokes():
    """Revokes a client received but cannot carry out because a release of the same lock is pending."""
    return sorted("%s lock %d (%d denied)" % (c.node, c.lock, c.release_denials)
                  for c in ClientLock if c.revoke_pending and c.release_pending)


@eventually(aux=[enough_time, suspect, pending_locks, blocked_revokes])
def queue_empty():
    """The server's pending queue is eventually empty."""
    return not pending_locks()
