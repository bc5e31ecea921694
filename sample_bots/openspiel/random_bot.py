#!/usr/bin/env python3
"""A random bot for every OpenSpiel game (docs/protocols/openspiel.md).

Answers each ``act`` with one of its legal actions, chosen uniformly with its
own seeded generator (``--seed N``, default 0); everything else it is sent is
a notification. Standard library only; it never looks at the game.
"""
import json
import random
import sys

seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 0
rng = random.Random(seed)

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "match_start":
        reply = {"type": "ready"}
    elif kind == "act":
        reply = {"type": "action", "action": rng.choice(message["legal"])["action"]}
    else:
        continue  # observe and match_end: nothing is answered
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
