#!/usr/bin/env python3
"""A Hold'em bot that picks uniformly among the legal actions.

A raise goes to a uniformly random amount in [min_raise_to, max_raise_to].
Speaks the arena's JSON lines directly (docs/protocols/holdem.md); standard
library only. Usage: python3 sample_bots/holdem/random_bot.py [--seed N]
"""
import json
import random
import sys

seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else None
rng = random.Random(seed)


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def decide(msg: dict) -> dict:
    action = rng.choice(msg["legal"])
    if action != "raise":
        return {"type": "action", "action": action}
    low, high = msg["min_raise_to"], msg["max_raise_to"]
    return {"type": "action", "action": "raise", "to": rng.randint(low, max(low, high))}


for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "match_start":
        send({"type": "ready"})
    elif kind == "act":
        send(decide(msg))
    # everything else is a notice: nothing to answer
