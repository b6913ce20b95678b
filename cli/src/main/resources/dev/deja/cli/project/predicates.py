# Predicates for the counter: deja check TRACE predicates.py --classpath target/classes
from deja import table, always

Counter = table("Counter", cls="demo.CounterNode", columns=["total", "applied"])


@always
def each_operation_counts_once():
    """A node's total is the number of distinct operations it applied: a duplicate is never counted twice."""
    return all(c.total == len(c.applied) for c in Counter)
