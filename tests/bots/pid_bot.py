#!/usr/bin/env python3
"""Test bot for rpsdraft: plays the first card, and logs its pid and the match number at every match_start."""
import json
import os
import sys

REPLIES = {
    "match_start": {"type": "ready"},
    "draft_pick": {"type": "pick", "index": 0},
    "main_play": {"type": "play", "index": 0},
}
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "match_start":
        sys.stderr.write(f"PID {os.getpid()} MATCH {msg['match']}\n")
        sys.stderr.flush()
    reply = REPLIES.get(kind)
    if reply is not None:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
