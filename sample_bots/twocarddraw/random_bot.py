#!/usr/bin/env python3
"""A TwoCardDraw bot that picks uniformly among the legal actions and draws 0-2 cards at random.

Speaks the arena's JSON lines directly; standard library only. Usage:
random_bot.py [--seed N]
"""
import json
import random
import sys

seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else None
rng = random.Random(seed)

for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "match_start":
        reply = {"type": "ready"}
    elif kind in ("round1", "round2"):
        reply = {"type": "action", "action": rng.choice(msg["options"])}
    elif kind == "draw":
        reply = {"type": "draw", "count": rng.randrange(3)}
    else:
        continue  # a notification: nothing to answer
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
