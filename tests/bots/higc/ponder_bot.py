"""A HIGC bot (the arena's, for its tests) that takes its time where the
referee gives it time of its own: PONDER seconds before each ``ponder``, and
OVER seconds after ``tournament over`` before it says it saved its data (on
stderr) and exits. It plays each match's first legal action.

Usage: python3 ponder_bot.py PONDER OVER
"""

import sys
import time

ponder, over = float(sys.argv[1]), float(sys.argv[2])
game, seat = input(), input()
print("ready", flush=True)
while True:
    print("start", flush=True)
    while True:
        line = input()
        if line == "tournament over":
            time.sleep(over)
            print("saved what it learnt", file=sys.stderr, flush=True)
            sys.exit(0)
        if line.startswith("match over"):
            print("match over", flush=True)
            break
        public, private, *legal = line.split(" ")
        if legal:
            print(legal[0], flush=True)
        else:
            time.sleep(ponder)
            print("ponder", flush=True)
