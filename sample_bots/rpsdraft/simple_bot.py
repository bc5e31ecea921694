#!/usr/bin/env python3
"""rpsdraft bot: keeps the stronger offered card, always plays the first card of its hand.

"Stronger" is the card that would win if the two met without a pair on the
table: the higher number, or with equal numbers R > S > P > R.
tests/play/test_rpsdraft_stats.py relies on exactly this strategy. Standard library only.
"""
import json
import sys

BEATS = {"R": "S", "S": "P", "P": "R"}


def stronger(a: str, b: str) -> bool:
    if a[1] != b[1]:
        return a[1] > b[1]
    return BEATS[a[0]] == b[0]


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "match_start":
        send({"type": "ready"})
    elif kind == "draft_pick":
        a, b = msg["cards"]
        send({"type": "pick", "index": 0 if stronger(a, b) else 1})
    elif kind == "main_play":
        send({"type": "play", "index": 0})
