#!/usr/bin/env python3
"""Test bot for vonneumann: plays correctly, then misbehaves in one way (argv[1]).

Correct play: as A always bet $5, as B always call. The misbehaviour
replaces its reply to the first ``a_turn`` (or, for the modes about calls,
the first ``b_turn``). Further arguments (a tag) only mark the process for
the tests' leftover-process check.
"""
import json
import os
import sys
import time

from io_faults import IO_MODES, io_fault  # tests/bots/io_faults.py

MODE = sys.argv[1]
out = sys.stdout.buffer
CALL_MODES = {"call_not_bool", "call_wrong_type"}


def send(text):
    out.write(text.encode() + b"\n")
    out.flush()


def misbehave():
    """Reply badly (or die); False for 'reply normally this time'."""
    if MODE == "garbage":
        send("lol what is this")
    elif MODE == "not_json":
        send('{"type": "bet", "amount": }')
    elif MODE == "wrong_type":
        send('{"type": "call", "call": true}')
    elif MODE == "illegal_amount":
        send('{"type": "bet", "amount": 2.5}')
    elif MODE == "nan_amount":
        send('{"type": "bet", "amount": NaN}')
    elif MODE == "string_amount":
        send('{"type": "bet", "amount": "5"}')
    elif MODE == "call_not_bool":
        send('{"type": "call", "call": 1}')
    elif MODE == "call_wrong_type":
        send('{"type": "bet", "amount": 5}')
    elif MODE == "slow":
        time.sleep(float(os.environ.get("SLOW", "1.5")))
        send('{"type": "bet", "amount": 5}')
    elif MODE in IO_MODES:
        io_fault(MODE, b'{"type": "bet", "amount": "\xff\xfe"}')
    else:
        return False
    return True


for line in sys.stdin:
    if '"match_start"' in line:
        send('{"type": "ready"}')
    elif '"a_turn"' in line:
        turn = json.loads(line)
        if MODE == "garbage_ahead" and turn["money"] > turn["opponent_money"]:
            send("no more, I am ahead")  # a bot that would keep its lead by faulting
            continue
        if MODE in CALL_MODES or not misbehave():
            send('{"type": "bet", "amount": 5}')
    elif '"b_turn"' in line:
        if MODE not in CALL_MODES or not misbehave():
            send('{"type": "call", "call": true}')
