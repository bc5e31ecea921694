#!/usr/bin/env python3
"""An openspiel bot for leduc_poker with a known, fixed strategy, read off
the information-state string it is sent (tests/cli/test_exploit.py solves
the same strategy directly with OpenSpiel). Seeded with ``--seed N``.

Cards: c // 2 is the rank (0 J, 1 Q, 2 K). Actions: 0 fold, 1 call or
check, 2 raise or bet.

* Round 1. K: raise whenever it may, else call. Q: facing a bet, call;
  else bet three times in ten, check otherwise. J: facing a bet, fold six
  times in ten, call otherwise; else check.
* Round 2. A pair with the board: raise whenever it may, else call. K:
  call (or check). Q or J: facing a bet, fold half the time, call otherwise;
  else check.
"""
import json
import random
import re
import sys

FIELDS = re.compile(r"\[Private: (\d+)\]\[Round (\d)\].*?(?:\[Public: (\d+)\])?\[Round1: ([\d ]*)\]\[Round2: ([\d ]*)\]")

args = sys.argv[1:]
rng = random.Random(int(args[args.index("--seed") + 1]) if "--seed" in args else 0)


def choose(state, legal):
    private, rnd, public, round1, round2 = FIELDS.search(state).groups()
    rank = int(private) // 2
    facing = "2" in (round1 if rnd == "1" else round2).split()
    raise_ok = 2 in legal

    def pick(weights):  # {action: weight} over the legal actions
        actions = [a for a in weights if a in legal and weights[a] > 0]
        return rng.choices(actions, [weights[a] for a in actions])[0]

    if rnd == "1":
        if rank == 2:
            return 2 if raise_ok else 1
        if rank == 1:
            return 1 if facing else pick({1: 0.7, 2: 0.3})
        return pick({0: 0.6, 1: 0.4}) if facing else 1
    if int(public) // 2 == rank:
        return 2 if raise_ok else 1
    if rank == 2:
        return 1
    return pick({0: 0.5, 1: 0.5}) if facing else 1


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "match_start":
        reply = {"type": "ready"}
    elif kind == "act":
        legal = [a["action"] for a in message["legal"]]
        reply = {"type": "action", "action": choose(message["information_state"], legal)}
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
