#!/usr/bin/env python3
"""The Paxos predicates of scripts/paxos.py, checked the way one would without Deja: over JSON dumps of every
node's state after every event (DIR/<node>.jsonl, one {"position", "node", "incarnation", "state"} per line).

    python3 bench/baseline/paxos_check.py DIR

Prints one JSON line per finding ({"predicate": NAME, "position": N}, at each event where a predicate turns false,
as deja check reports them) and a last line {"events": N}. The same semantics as the Deja script: an agent's row
is the state of one node incarnation; its accepted round history and the decision's history keep changes only.
"""
import glob
import heapq
import json
import os
import sys


def lines(path):
    with open(path) as f:
        for line in f:
            yield json.loads(line)


def main(directory):
    files = sorted(glob.glob(os.path.join(directory, "*.jsonl")))
    agents = {}          # (node, incarnation) -> state
    rounds = {}          # (node, incarnation) -> accepted rounds, newest first, changes only, two kept
    decisions = []       # decision values, newest first, changes only, two kept
    truth = {"global_consistency": True, "accepted_round_increasing": True}
    events = 0
    merged = heapq.merge(*(lines(f) for f in files), key=lambda d: d["position"])
    for dump in merged:
        events += 1
        key = (dump["node"], dump["incarnation"])
        # A restarted node is a new object: its old incarnation's row goes away.
        for old in [k for k in agents if k[0] == key[0] and k != key]:
            del agents[old]
            rounds.pop(old, None)
        state = dump["state"]
        agents[key] = state
        history = rounds.setdefault(key, [])
        if not history or history[0] != state["acceptedRound"]:
            history.insert(0, state["acceptedRound"])
            del history[2:]

        votes = {}
        majority = None
        for a in agents.values():
            majority = a["majority"]
            if a["acceptedValue"] is not None:
                vote = (a["acceptedRound"], a["acceptedValue"])
                votes[vote] = votes.get(vote, 0) + 1
        decided = [vote for vote, count in votes.items() if majority and count >= majority]
        if decided:
            decision = max(decided)[1]
        else:
            decision = decisions[0] if decisions else None
        if not decisions or decisions[0] != decision:
            decisions.insert(0, decision)
            del decisions[2:]

        now = {
            "global_consistency": len(decisions) < 2 or decisions[1] is None or decisions[0] == decisions[1],
            "accepted_round_increasing": all(len(h) < 2 or h[0] >= h[1] for h in rounds.values()),
        }
        for name, value in now.items():
            if truth[name] and not value:
                print(json.dumps({"predicate": name, "position": dump["position"]}))
            truth[name] = value
    print(json.dumps({"events": events}))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: paxos_check.py DUMP_DIRECTORY")
    main(sys.argv[1])
