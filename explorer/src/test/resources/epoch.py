# The epochs of dev.deja.explore.epoch: no epoch is taken twice.
from deja import table, always

Witness = table("Witness", cls="dev.deja.explore.epoch.EpochWitness", columns=["reused"])


@always
def epochs_unique():
    """No epoch was announced twice."""
    return not any(w.reused for w in Witness)
