#!/usr/bin/env python3
"""A hold'em bot that goes all in whenever it may (else calls): against a
caller every hand is all in before the flop, the all-in adjustment's case."""
import json
import sys

for line in sys.stdin:
    msg = json.loads(line) if line.strip() else {}
    if msg.get("type") == "match_start":
        print('{"type": "ready"}', flush=True)
    elif msg.get("type") == "act":
        action = "allin" if "allin" in msg["legal"] else "call"
        print(json.dumps({"type": "action", "action": action}), flush=True)
