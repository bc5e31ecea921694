#!/usr/bin/env python3
"""Test bot for twocarddraw: plays a fixed policy correctly, then misbehaves
in one way (argv[1]) at its first request. Further arguments (a tag) only
mark the process for the leftover-process check.

The fixed policy ("none"): check when it can; in round 1 call any bet; in
round 2 call with a pair and fold without one; keep a pair, draw one card
holding a 3 or a 4, else two.
"""
import json
import sys
import time

from io_faults import IO_MODES, io_fault  # tests/bots/io_faults.py

MODE = sys.argv[1]
out = sys.stdout.buffer


def send(obj):
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()


def misbehave(msg):
    if MODE == "garbage":
        out.write(b"lol what is this\n")
    elif MODE == "not_json":
        out.write(b'{"type": "action", "action": \n')
    elif MODE == "wrong_type":
        send({"type": "ready"})
    elif MODE == "illegal":
        if msg["type"] == "draw":
            send({"type": "draw", "count": 3})
        else:
            send({"type": "action", "action": "call" if "check" in msg["options"] else "check"})
    elif MODE == "slow":
        time.sleep(1.5)
        return False
    elif MODE in IO_MODES:
        io_fault(MODE, b'{"type": "action", "action": "\xff\xfe"}')
    else:
        return False
    out.flush()
    return True


def policy(msg):
    lo, hi = msg["cards"]
    if msg["type"] == "draw":
        return {"type": "draw", "count": 0 if lo == hi else 1 if hi >= 3 else 2}
    options = msg["options"]
    if "check" in options:
        action = "check"
    elif msg["type"] == "round1" or lo == hi:
        action = "call"
    else:
        action = "fold"
    return {"type": "action", "action": action}


done = False
for raw in sys.stdin:
    msg = json.loads(raw)
    kind = msg["type"]
    if kind == "match_start":
        send({"type": "ready"})
    elif kind in ("round1", "draw", "round2"):
        if not done:
            done = True
            if misbehave(msg):
                continue
        send(policy(msg))
