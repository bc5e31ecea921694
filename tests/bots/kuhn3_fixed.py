#!/usr/bin/env python3
"""A kuhn3 bot with a known, fixed strategy (tests/cli/test_exploit.py solves
the same strategy directly with OpenSpiel).

``--strategy check-call``: always check; facing a bet, call with K or A and
fold with J or Q (deterministic).

``--strategy mixed`` (seeded with ``--seed N``): with nothing to call, bet
with A always, with Q a quarter of the time, with J three times in ten when
both other seats have checked, never with K; facing a bet, call with A
always, with K six times in ten, with Q two in ten, never with J.

It keeps the money totals the dealer checks from what it is told.
"""
import random
import sys

MAX_BET = 2


def main():
    args = sys.argv[1:]
    strategy = args[args.index("--strategy") + 1] if "--strategy" in args else "check-call"
    rng = random.Random(int(args[args.index("--seed") + 1]) if "--seed" in args else 0)
    lines = (line.strip() for line in sys.stdin)

    def fields(n):
        return [next(lines).partition(":")[2].strip() for _ in range(n)]

    def say(text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    money, card, ends = [0, 0, 0], None, 0
    for header in lines:
        if header == "init_round":
            fields(4)
            say("READY")
        elif header == "init_hand":
            card = fields(2)[1]
            say("READY")
        elif header == "play":
            acts = [(v.split()[0], int(v.split()[1])) for v in fields(3)]
            mine = acts[0][1]
            facing = max(a for _, a in acts) > mine
            if strategy == "check-call":
                bet = facing and card in "KA"
            elif facing:
                bet = rng.random() < {"A": 1.0, "K": 0.6, "Q": 0.2, "J": 0.0}[card]
            else:
                checked = all(verb == "BET" for verb, _ in acts[1:])
                odds = {"A": 1.0, "K": 0.0, "Q": 0.25, "J": 0.3 if checked else 0.0}[card]
                bet = rng.random() < odds
            if facing:
                say(f"BET {MAX_BET}" if bet else f"FOLD {mine}")
            else:
                say(f"BET {MAX_BET}" if bet else f"BET {mine}")
        elif header == "end_hand":
            block = fields(5)
            for seat, value in enumerate(block[:3]):
                money[seat] -= int(value.split()[1])
            for pot in block[4].split():
                value, winner = pot.split(",")
                money[int(winner)] += int(value)
            ends = 0
            say("OK")
        elif header.startswith("EndAction"):
            ends += 1
            if ends == 3:
                say("Money: " + ",".join(map(str, money)))
        elif header == "end_round":
            fields(2)
            say("Thank you dealer, have a nice day!")
            return


if __name__ == "__main__":
    main()
