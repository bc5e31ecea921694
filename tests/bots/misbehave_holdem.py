#!/usr/bin/env python3
"""Test bot for holdem: says ready, then misbehaves at every ``act`` (argv[1]).

``illegal_raise``: a raise to 1, below every minimum raise; ``garbage``: not
JSON; ``crash``: exits with code 3; ``leave@N``: calls until hand N, then at
its first ``act`` there closes its stdin, folds (checks when it may not fold)
and exits 0, so the arena finds its input closed at the next write to it.
Further arguments (a tag) only mark the process.
"""
import json
import os
import sys

MODE = sys.argv[1]


def send(obj) -> None:
    sys.stdout.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "match_start":
        send({"type": "ready"})
    elif kind == "act":
        if MODE == "illegal_raise":
            send({"type": "action", "action": "raise", "to": 1})
        elif MODE == "garbage":
            send("what is a blind")
        elif MODE == "crash":
            sys.exit(3)
        elif MODE.startswith("leave@"):
            if msg["hand"] < int(MODE[len("leave@"):]):
                send({"type": "action", "action": "call"})
                continue
            os.close(0)  # before the reply: whatever the arena writes after reading it finds the pipe closed
            send({"type": "action", "action": "fold" if "fold" in msg["legal"] else "call"})
            sys.exit(0)
