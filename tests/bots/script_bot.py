#!/usr/bin/env python3
"""Test bot: answers each kuhn3 message with the next line of a reply file and
records every line it receives. Usage: script_bot.py REPLIES RECORD [tag]"""
import sys

# Lines that follow each header before the message is complete.
FOLLOWING = {"init_round": 4, "init_hand": 2, "play": 3, "end_hand": 5, "end_round": 2}

replies = open(sys.argv[1]).read().splitlines()
record = open(sys.argv[2], "w")
it = iter(replies)
while True:
    line = sys.stdin.readline()
    if not line:
        break
    record.write(line)
    head = line.rstrip("\n")
    extra = 2 if head.startswith("EndAction:") else FOLLOWING.get(head, 0)
    for _ in range(extra):
        record.write(sys.stdin.readline())
    record.flush()
    reply = next(it, None)
    if reply is None:
        break
    sys.stdout.write(reply + "\n")
    sys.stdout.flush()
    if head == "end_round":
        break
