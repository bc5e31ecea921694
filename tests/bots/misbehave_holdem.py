#!/usr/bin/env python3
"""Test bot for holdem: says ready, then misbehaves at every ``act`` (argv[1]).

``illegal_raise``: a raise to 1, below every minimum raise; ``garbage``: not
JSON; ``crash``: exits with code 3. Further arguments (a tag) only mark the
process.
"""
import json
import sys

MODE = sys.argv[1]


def send(obj) -> None:
    sys.stdout.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    kind = json.loads(line).get("type")
    if kind == "match_start":
        send({"type": "ready"})
    elif kind == "act":
        if MODE == "illegal_raise":
            send({"type": "action", "action": "raise", "to": 1})
        elif MODE == "garbage":
            send("what is a blind")
        elif MODE == "crash":
            sys.exit(3)
