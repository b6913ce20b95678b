# The counter of dev.deja.explore.counter: every write the server applied counts, so none is lost.
from deja import table, always

Server = table("Server", cls="dev.deja.explore.counter.CounterServer", columns=["value", "writes"])


@always
def no_lost_update():
    """The server's value is the number of writes it applied."""
    return all(s.value == s.writes for s in Server)
