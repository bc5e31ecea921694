#!/usr/bin/env python3
"""Test bot: answers every kuhn3 message with random bytes (seeded by argv[1]).

Mostly a correct-looking guess, sometimes junk, sometimes no newline,
sometimes it just exits."""
import random
import sys

FOLLOWING = {"init_round": 4, "init_hand": 2, "play": 3, "end_hand": 5, "end_round": 2}
rng = random.Random(int(sys.argv[1]))
GUESSES = [b"READY", b"OK", b"BET 1", b"BET 2", b"FOLD 1", b"Money: 0,0,0", b"PASS 1", b""]
out = sys.stdout.buffer
while True:
    line = sys.stdin.readline()
    if not line:
        break
    head = line.rstrip("\n")
    for _ in range(2 if head.startswith("EndAction:") else FOLLOWING.get(head, 0)):
        sys.stdin.readline()
    roll = rng.random()
    if roll < 0.6:
        reply = {"init_round": b"READY", "init_hand": b"READY", "end_hand": b"OK"}.get(head) or rng.choice(GUESSES)
        out.write(reply + b"\n")
    elif roll < 0.9:
        out.write(rng.randbytes(rng.randrange(0, 30)) + b"\n")
    elif roll < 0.97:
        out.write(rng.randbytes(rng.randrange(1, 10)))  # no newline: a timeout
    else:
        break
    out.flush()
