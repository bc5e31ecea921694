#!/usr/bin/env python3
"""A pennies bot that shows a random side (``--seed N`` for a fixed sequence)."""

import json
import random
import sys

rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[1] == "--seed" else None)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "match_start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "choose":
        print(json.dumps({"type": "coin", "side": rng.choice(["heads", "tails"])}), flush=True)
