#!/usr/bin/env python3
"""Random bot for 3-player Kuhn poker (arena text protocol on stdin/stdout).

Every time it must act it picks uniformly between the two legal actions:
check or bet when nobody has bet, fold or call when facing a bet.
It keeps its own running money totals to answer the dealer's `Money:` check.

Run:  python3 random_bot.py [--seed N]
      (without --seed the RNG is seeded from os.urandom)
"""
import argparse
import os
import random
import re
import sys

MAX_BET = 2  # the only bet in this game brings a seat to 2 in front
_INT = re.compile(r"-?\d+")


def ints(text):
    """All integers in a field body; tolerant of spaces after commas."""
    return [int(x) for x in _INT.findall(text)]


def parse_action(body):
    """'BET 2' -> ('BET', 2)."""
    parts = body.split()
    return parts[0].upper(), int(parts[1])


def choose(rng, acts):
    mine = acts[0][1]
    top = max(v for _, v in acts)
    if top > mine:  # facing a bet: fold or call
        return rng.choice(("FOLD %d" % mine, "BET %d" % top))
    if mine < MAX_BET:  # unopened pot: check or bet
        return rng.choice(("BET %d" % mine, "BET %d" % MAX_BET))
    return "BET %d" % mine  # cannot bet any further: only checking is legal


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(8), "little")
    rng = random.Random(seed)

    stdin, stdout = sys.stdin, sys.stdout

    def reply(text):
        stdout.write(text + "\n")
        stdout.flush()  # the dealer waits for each line; never leave it buffered

    def next_line():
        while True:
            line = stdin.readline()
            if not line:  # dealer went away: nothing more to do
                sys.exit(0)
            line = line.strip()
            if line:
                return line

    def read_fields(n):
        """Read n 'Key: value' lines; returns a list of (key, body) pairs."""
        out = []
        for _ in range(n):
            key, _, body = next_line().partition(":")
            out.append((key.strip(), body.strip()))
        return out

    money = [0, 0, 0]
    end_actions = 0
    while True:
        header = next_line()
        if header == "init_round":
            for key, body in read_fields(4):
                if key == "Money":
                    money = ints(body)
            reply("READY")
        elif header == "init_hand":
            read_fields(2)
            reply("READY")
        elif header == "play":
            acts = [parse_action(b) for _, b in read_fields(3)]
            reply(choose(rng, acts))
        elif header == "end_hand":
            # Everyone loses what it has in front; each pot goes to its winner.
            fields = read_fields(5)
            acts = [parse_action(b) for k, b in fields if k == "Action"]
            for seat, (_, in_front) in enumerate(acts):
                money[seat] -= in_front
            for key, body in fields:
                if key == "Pots":  # "<value>,<winner>" pairs, maybe several
                    nums = ints(body)
                    for i in range(0, len(nums) - 1, 2):
                        money[nums[i + 1]] += nums[i]
            end_actions = 0
            reply("OK")
        elif header.startswith("EndAction"):
            # Three header-less lines; the Money check is due after the third.
            end_actions += 1
            if end_actions == 3:
                end_actions = 0
                reply("Money: " + ",".join(str(m) for m in money))
        elif header == "end_round":
            read_fields(2)
            reply("Thank you dealer, have a nice day!")
            sys.exit(0)
        else:
            print("random_bot: ignoring unexpected line %r" % header, file=sys.stderr)


if __name__ == "__main__":
    main()
