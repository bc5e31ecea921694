#!/usr/bin/env python3
"""Attack bot for kuhn3: finds a seed a person typed from the cards it was dealt.

The arena's chance stream is public (arena/_seeds.py): SHAKE-256 keyed by a
hash of the match's seed, a tournament match's seed a keyed hash of the
tournament's. This bot carries its own copy of both, plays its first
``LOOK`` hands (always checks or calls), then tries every seed a person is
likely to type (0 to 10,000, or to its first argument, and words such as
``league-week-3``), as the
seed of the match or as a tournament's seed of one of its first matches, at
each seat: a seed that deals it the cards it saw is the one. From then on it
names its own card before each hand is dealt and checks itself. At the end
it writes on stderr one line::

    SEEDSEARCH tried=N found=SEED|- predicted=P correct=C
"""
import hashlib
import json
import random
import sys

LOOK = 12
RANKS = ("J", "Q", "K", "A")


class Stream(random.Random):
    """The arena's chance stream, as its source documents it."""

    def __init__(self, seed, first=4096):
        self.key = hashlib.blake2b(seed.encode(), digest_size=32).digest()
        self.block, self.buf, self.pos = -1, b"", 0
        self.refill(first)  # a search needs only the first bytes of a block (SHAKE's output has no end)

    def refill(self, size=4096):
        self.block += 1
        self.buf = hashlib.shake_256(b"arena-chance-v1\0" + self.key + self.block.to_bytes(8, "little")).digest(size)
        self.pos = 0

    def getrandbits(self, k):
        n = (k + 7) >> 3
        out = b""
        while n:
            if self.pos >= len(self.buf):
                if len(self.buf) < 4096:  # the rest of a shortened first block
                    self.block -= 1
                    rest = self.pos
                    self.refill()
                    self.pos = rest
                    continue
                self.refill()
            take = min(n, len(self.buf) - self.pos)
            out += self.buf[self.pos:self.pos + take]
            self.pos += take
            n -= take
        return int.from_bytes(out, "little") & ((1 << k) - 1)

    def random(self):
        return self.getrandbits(53) * 2.0 ** -53


def derived(root, *labels):
    """A tournament match's seed from the tournament's."""
    key = hashlib.blake2b(root.encode(), digest_size=32, person=b"arena-seed-v1").digest()
    text = json.dumps([str(x) for x in labels], separators=(",", ":")).encode()
    return hashlib.blake2b(text, key=key, digest_size=16).hexdigest()


#: numbers tried: 0 to this (argument 1, 10,000 if not given)
UP_TO = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000


def typed():
    yield from (str(n) for n in range(UP_TO + 1))
    for prefix in ("league-week-", "week-", "round-", "test-", "run-", "tournament-", "match-", "seed-"):
        yield from (f"{prefix}{n}" for n in range(100))
    yield from ("test", "demo", "league", "seed", "arena", "kuhn3", "final")


def deals(seed, hands, ends, first=4096):
    """The cards of ``hands`` hands under ``seed``, and the stream after them."""
    rng = Stream(seed, first)
    rng.randrange(3)  # the button
    out = []
    for _ in range(hands):
        out.append(tuple(rng.sample(RANKS, 3)))
        if ends is not None:
            rng.randrange(ends[1])
    return out, rng


def search(seen, ends):
    tried = 0
    for word in typed():
        for seed in (word, *(derived(word, "round", 0, "match", i) for i in range(6))):
            tried += 1
            for variant in (None, ends) if ends else (None,):
                dealt, _ = deals(seed, len(seen), variant, first=128)
                for seat in range(3):
                    if all(d[seat] == c for d, c in zip(dealt, seen)):
                        return tried, word, seat, deals(seed, len(seen), variant)[1], variant
    return tried, None, None, None, None


def reply(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


seen = []
ends = None
found = seat = rng = variant = None
tried = predicted = correct = 0
guess = None
phase = ""
acts = []
money = None
done = 0
for raw in sys.stdin:
    line = raw.rstrip("\n")
    if line.startswith("EndProb:"):
        a, b = (int(x) for x in line.split()[1].split(","))
        ends = (a, b) if a > 0 else None
        reply("READY")
    elif line.startswith("Money:") and money is None:
        money = [int(x) for x in line[6:].split(",")]
    elif line.startswith("Cards:"):
        card = line.split()[1]
        if guess is not None:
            predicted += 1
            correct += guess == card
        seen.append(card)
        if len(seen) == LOOK and found is None:
            tried, found, seat, rng, variant = search(seen, ends)
        guess = None
        if rng is not None:
            guess = rng.sample(RANKS, 3)[seat]
            if variant is not None:
                rng.randrange(variant[1])
        reply("READY")
    elif line in ("play", "end_hand"):
        phase, acts = line, []
    elif line.startswith("Action:"):
        acts.append(int(line.split()[-1]))
        if phase == "play" and len(acts) == 3:
            reply(f"BET {max(acts)}")  # check, or call
    elif line.startswith("Pots:"):
        for pot in line[5:].split():
            value, winner = map(int, pot.split(","))
            money[winner] += value
        for i in range(3):
            money[i] -= acts[i]
        reply("OK")
        done = 0
    elif line.startswith("EndAction:"):
        done += 1
        if done == 3:
            reply("Money: " + ",".join(map(str, money)))
    elif line.startswith("NumHands:"):
        sys.stderr.write(f"SEEDSEARCH tried={tried} found={found or '-'} predicted={predicted} correct={correct}\n")
        sys.stderr.flush()
        reply("Thank you dealer, have a nice day!")
        break
