#!/usr/bin/env python3
"""A pennies bot that shows the side its opponent showed last throw."""

import json
import sys

seat, side = 0, "heads"
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "match_start":
        seat, side = message["seat"], "heads"
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "choose":
        print(json.dumps({"type": "coin", "side": side}), flush=True)
    elif message["type"] == "round_result":
        side = message["sides"][1 - seat]
