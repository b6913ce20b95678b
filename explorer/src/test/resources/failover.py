# The failover pair of dev.deja.explore.failover: never two primaries at once.
from deja import table, always

Primary = table("Primary", cls="dev.deja.explore.failover.PrimaryNode", columns=["primary"])
Backup = table("Backup", cls="dev.deja.explore.failover.BackupNode", columns=["primary"])


@always
def one_primary():
    """At most one node acts as primary."""
    return len([p for p in Primary if p.primary]) + len([b for b in Backup if b.primary]) <= 1
