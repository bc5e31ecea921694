#!/usr/bin/env python3
"""Check/fold bot for 3-player Kuhn poker (arena text protocol on stdin/stdout).

The most passive legal strategy: it checks whenever nobody has bet and folds
to any bet, whatever its card. Useful as a punching bag and a protocol smoke test.
It keeps its own running money totals to answer the dealer's `Money:` check.

Run:  python3 check_fold_bot.py
"""
import re
import sys

_INT = re.compile(r"-?\d+")


def ints(text):
    """All integers in a field body; tolerant of spaces after commas."""
    return [int(x) for x in _INT.findall(text)]


def parse_action(body):
    """'BET 2' -> ('BET', 2)."""
    parts = body.split()
    return parts[0].upper(), int(parts[1])


def choose(acts):
    mine = acts[0][1]
    top = max(v for _, v in acts)
    if top > mine:
        return "FOLD %d" % mine  # fold keeps the amount already in front
    return "BET %d" % mine  # a check is a BET of what is already in front


def main():
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
            reply(choose(acts))
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
            print("check_fold_bot: ignoring unexpected line %r" % header, file=sys.stderr)


if __name__ == "__main__":
    main()
