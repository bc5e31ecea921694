#!/usr/bin/env python3
"""A Hold'em bot that always calls (a check when nothing is owed).

Speaks the arena's JSON lines directly (docs/protocols/holdem.md); standard
library only. Usage: python3 sample_bots/holdem/call_bot.py
"""
import json
import sys


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "match_start":
        send({"type": "ready"})
    elif kind == "act":
        legal = msg["legal"]
        # "call" is always offered; the fallbacks only guard against surprises.
        action = "call" if "call" in legal else ("allin" if "allin" in legal else "fold")
        send({"type": "action", "action": action})
    # everything else is a notice: nothing to answer
