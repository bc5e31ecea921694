#!/usr/bin/env python3
"""The smallest valid rpsdraft bot: keeps the first offered card, plays the first card of its hand.

Speaks the arena's JSON lines directly (one object per line each way). Standard library only.
"""
import json
import sys

REPLIES = {
    "match_start": {"type": "ready"},
    "draft_pick": {"type": "pick", "index": 0},
    "main_play": {"type": "play", "index": 0},
}

for line in sys.stdin:
    reply = REPLIES.get(json.loads(line)["type"])
    if reply is not None:  # everything else is a notification: no reply
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
