#!/usr/bin/env python3
"""Test bot for rpsdraft: plays correctly (index 0 always), then misbehaves per argv[1].

``one_match`` plays a match well and exits at its ``match_end``.

argv[2] says when: "draft" (at the first draft_pick) or "main" (at the first
main_play). Further arguments (a tag) only mark the process for the tests'
leftover-process check.
"""
import json
import sys
import time

from io_faults import IO_MODES, io_fault  # tests/bots/io_faults.py

MODE = sys.argv[1]
WHEN = sys.argv[2] if len(sys.argv) > 2 else "main"
out = sys.stdout.buffer


def send(raw: bytes) -> None:
    out.write(raw + b"\n")
    out.flush()


def misbehave(kind: str) -> bool:
    """Do the misbehaviour; False when the mode is not one (reply normally)."""
    if MODE == "garbage":
        send(b"lol what is this")
    elif MODE == "not_json":
        send(b"{'type': 'pick', 'index': 0}")
    elif MODE == "wrong_type":
        send(json.dumps({"type": "fold", "index": 0}).encode())
    elif MODE == "extra_field":
        send(json.dumps({"type": kind, "index": 0, "why": "because"}).encode())
    elif MODE == "illegal_index":
        send(json.dumps({"type": kind, "index": 7}).encode())
    elif MODE == "string_index":
        send(json.dumps({"type": kind, "index": "0"}).encode())
    elif MODE == "slow":
        time.sleep(1.5)
        send(json.dumps({"type": kind, "index": 0}).encode())
    elif MODE in IO_MODES:
        io_fault(MODE, b'{"type": "play", "index": "\xff\xfe"}')
    else:
        return False
    return True


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "match_start":
        send(b'{"type": "ready"}')
    elif kind == "draft_pick":
        if not (WHEN == "draft" and misbehave("pick")):
            send(b'{"type": "pick", "index": 0}')
    elif kind == "main_play":
        if not (WHEN == "main" and misbehave("play")):
            send(b'{"type": "play", "index": 0}')
    elif kind == "match_end" and MODE == "one_match":
        sys.exit(0)  # plays one match well, then leaves: fine with a fresh process per match only
