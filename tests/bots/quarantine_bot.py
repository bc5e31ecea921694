#!/usr/bin/env python3
"""Test bot for ``arena quarantine``: a kuhn3 bot that always checks or calls,
with one flaw chosen by argv[1]:

  good          no flaw
  bad_hello     answers the very first message (init_round) with a wrong line
  die_at_start  writes to stderr and exits with code 2 before reading anything
  slow_once     its first ``play`` reply takes argv[2] seconds (under the timeout)
  linger        after the closing line it ignores the end of its stdin and stays

Further arguments after the mode's own (a tag) only mark the process for the
tests' leftover check.
"""
import sys
import time

MODE = sys.argv[1]
out = sys.stdout


def reply(text):
    out.write(text + "\n")
    out.flush()


if MODE == "die_at_start":
    sys.stderr.write("fatal: cannot load my opening book\n")
    sys.stderr.flush()
    sys.exit(2)

money = [0, 0, 0]
block = None  # the header of the message being read
body = []
ends = []
slow_pending = MODE == "slow_once"

for raw in sys.stdin:
    line = raw.rstrip("\n")
    if block is None:
        if line.startswith("EndAction:"):
            ends.append(line)
            if len(ends) == 3:
                ends = []
                reply("Money: " + ",".join(str(m) for m in money))
            continue
        block, body = line, []
        continue
    body.append(line)
    if block == "init_round" and len(body) == 4:
        reply("HELLO DEALER" if MODE == "bad_hello" else "READY")
    elif block == "init_hand" and len(body) == 2:
        reply("READY")
    elif block == "play" and len(body) == 3:
        highest = max(int(b.split()[-1]) for b in body)
        if slow_pending:
            slow_pending = False
            time.sleep(float(sys.argv[2]))
        reply(f"BET {highest}")  # a check, or a call
    elif block == "end_hand" and len(body) == 5:
        for i in range(3):
            money[i] -= int(body[i].split()[-1])
        for pot in body[4][len("Pots:"):].split():
            value, winner = pot.split(",")
            money[int(winner)] += int(value)
        reply("OK")
    elif block == "end_round" and len(body) == 2:
        reply("Thank you dealer, have a nice day!")
    else:
        continue
    block = None

if MODE == "linger":
    time.sleep(600)
