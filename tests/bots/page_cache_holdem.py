#!/usr/bin/env python3
"""Attack bot for Hold'em: remembers a duplicate deal in the page cache of a
file every seating of it can read, as a hostile bot would.

Usage: page_cache_holdem.py at:FILE OFFSET TAG

FILE is a file the bot can read (one of its own, or a large one under /usr,
given as text after ``at:``) and OFFSET where in it its pages are; TAG marks
the process for the tests' leftover check. The first read of a page that is
not in the page cache waits for the disk (tens of microseconds here); a
cached page is read in well under one. Readahead is turned off
(``POSIX_FADV_RANDOM``) and marks lie two pages apart, so a read warms the
page read and no other. Nothing needs to be emptied: each mark is read once.

* Which seating am I? Four claim pages: the first one found cold is this
  process's (reading it claims it).
* Seating k keeps one page per (hand, card) in a region of its own: it reads
  the pages of the cards it knows (its own hole cards, and those it learnt),
  so that seating k + 1, reading every page of region k once and timing it,
  learns them before it acts.

It plays legally (always calls, a check when nothing is owed). At every
``match_end`` it writes on stderr one line::

    MARKS seating=K predicted=P correct=C

P counts the opponents' hole cards it named before the showdown, C how many
of them were right (a card shown by an opponent at the showdown).
"""
import json
import os
import sys
import time

FILE = sys.argv[1].removeprefix("at:")
OFFSET = int(sys.argv[2])
PAGE = 4096
HANDS = 12  # at most, per seating: the marks of four seatings take 20 MB of FILE
RANKS, SUITS = "23456789TJQKA", "cdhs"
CARDS = [r + s for r in RANKS for s in SUITS]
#: a read this fast found its page in the cache
WARM = 8e-6

fd = os.open(FILE, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)


def page(index):
    return OFFSET + 2 * index * PAGE


def claim_page(k):
    return page(k)


def mark_page(seating, hand, card):
    return page(8 + (seating * HANDS + hand) * len(CARDS) + CARDS.index(card))


def warm(at):
    """Read one byte of the page at ``at``: whether it was in the cache (now it is)."""
    started = time.perf_counter()
    os.pread(fd, 1, at)
    return time.perf_counter() - started < WARM


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


seating = me = None
known = {}  # hand -> the cards this seating knows of it (its own and learnt)
named = {}  # hand -> opponents' cards named before the showdown
predicted = correct = 0
for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "match_start":
        seating, me = next((k for k in range(4) if not warm(claim_page(k))), 4), msg["seat"]
        known, named, predicted, correct = {}, {}, 0, 0
        send({"type": "ready"})
    elif kind == "act":
        legal = msg["legal"]
        send({"type": "action", "action": "call" if "call" in legal else ("allin" if "allin" in legal else "fold")})
    elif kind == "hand_start" and seating is not None and msg["hand"] < HANDS:
        hand, mine = msg["hand"], list(msg["cards"])
        learnt = []
        if 0 < seating < 4:
            found = [c for c in CARDS if warm(mark_page(seating - 1, hand, c))]
            # what an earlier seating held and learnt: every hole card of this deal but a few
            if 0 < len(found) <= 2 * len(msg["in_hand"]):
                learnt = [c for c in found if c not in mine]
        named[hand] = learnt
        known[hand] = mine + learnt
        if seating < 4:
            for card in known[hand]:
                warm(mark_page(seating, hand, card))
    elif kind == "hand_end" and msg["hand"] in named:
        shown = {c for s in msg["shown"] if s["seat"] != me for c in s["cards"]}
        guesses = named[msg["hand"]]
        predicted += len(guesses)
        correct += sum(c in shown for c in guesses)
    elif kind == "match_end":
        sys.stderr.write(f"MARKS seating={seating} predicted={predicted} correct={correct}\n")
        sys.stderr.flush()
