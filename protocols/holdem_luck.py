"""Hold'em's luck (protocols/luck.py): the chance terms of every hand, read
from the lines the arena sends the seats.

The value function is the showdown value: what each seat would win if the
hand were checked down from here, ``sum over pots of pot * equity - chips
put in``, each pot (main and side pots, from what every seat has put in)
shared among the seats still in it that put in enough, the equities over
every way the board can still fall, given every hole card dealt (the arena
dealt them all; a folded hand's cards are out of the deck too). A chance
event changes only the equities, so its term is ``sum of pot * (equity
after - equity before)``; the expectation of an equity over the next card
is the equity before it, so each term has mean zero.

Chance events: the deal (before it every seat's equity in a pot is 1/n),
the flop, the turn and the river. ``allin`` counts those dealt once at most
one seat still in the hand has chips behind (nobody can act again);
``aivat`` counts all of them.

Equities with two cards or fewer to come are exact (at most 990 boards);
before the flop they are a mean over ``SAMPLES`` boards drawn from a stream
of their own (``seed``), which bots never see: such an estimate is unbiased,
so the terms keep mean zero.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass, field
from math import comb

from games.holdem._cards import NUMBERS, evaluate_runouts
from . import holdem_wire as wire
from .luck import HandLuck

#: boards drawn for an equity with three or more cards to come
SAMPLES = 400
#: the most boards an equity enumerates (two cards to come: at most 990)
EXACT = 1000


@dataclass
class _Hand:
    number: int
    put_in: dict[int, int]  # seat -> chips put in this hand
    behind: dict[int, int]  # seat -> chips left
    live: set[int]  # seats still in the hand
    reader: int  # every seat is sent each notice: the lowest seat's copies are read (as hands_of reads them)
    holes: dict[int, tuple[int, int]] = field(default_factory=dict)
    board: tuple[int, ...] = ()
    dealt: bool = False  # the deal's term is taken (once every seat's cards are known)
    terms: dict[str, dict[int, float]] = field(default_factory=lambda: {"allin": {}, "aivat": {}})


def pots(put_in: dict[int, int], live: set[int]) -> list[tuple[int, list[int]]]:
    """The pots as the chips stand: ``(amount, seats that may win it)``, main pot
    first; a seat's chips beyond what any other seat still in matched come back
    as a pot of its own."""
    levels = sorted({put_in[s] for s in live})
    out, below = [], 0
    for level in levels:
        amount = sum(min(c, level) - min(c, below) for c in put_in.values())
        out.append((amount, [s for s in live if put_in[s] >= level]))
        below = level
    extra = sum(c - min(c, below) for c in put_in.values())  # folded chips above every live seat's
    if extra and out:
        out[-1] = (out[-1][0] + extra, out[-1][1])
    return out


def equities(holes: dict[int, tuple[int, int]], board: tuple[int, ...], groups: list[tuple[int, ...]],
             rng: random.Random) -> dict[tuple[int, ...], dict[int, float]]:
    """For each group of seats, each one's share of a pot among them (ties split)
    over the boards still to come, every hole card in ``holes`` out of the deck."""
    dead = {c for h in holes.values() for c in h} | set(board)
    deck = [c for c in range(52) if c not in dead]
    to_come = 5 - len(board)
    if comb(len(deck), to_come) <= EXACT:
        runouts: list[tuple[int, ...]] = list(itertools.combinations(deck, to_come))
    else:
        runouts = _sampled(deck, to_come, rng)
    seats = sorted({s for g in groups for s in g})
    where = {s: i for i, s in enumerate(seats)}
    rows = evaluate_runouts([holes[s] for s in seats], board, runouts)
    out = {}
    for group in groups:
        at = [where[s] for s in group]
        won = [0.0] * len(group)
        for values in rows:
            mine = [values[i] for i in at]
            best = max(mine)
            winners = mine.count(best)
            for k, v in enumerate(mine):
                if v == best:
                    won[k] += 1 / winners
        out[group] = {s: w / len(rows) for s, w in zip(group, won)}
    return out


def _sampled(deck: list[int], to_come: int, rng: random.Random) -> list[tuple[int, ...]]:
    """``SAMPLES`` runouts, each uniform over the deck: a shuffled deck is cut into as
    many as it holds, then shuffled again (one shuffle for several runouts)."""
    out: list[tuple[int, ...]] = []
    cards = list(deck)
    per = len(cards) // to_come
    while len(out) < SAMPLES:
        rng.shuffle(cards)
        out += [tuple(cards[k * to_come:(k + 1) * to_come]) for k in range(min(per, SAMPLES - len(out)))]
    return out


class HoldemLuck:
    """The reader: ``sent(seat, text)`` for every line the arena sends a seat,
    ``take()`` for the hands finished since."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.stack = 0
        self.hand: _Hand | None = None
        self.finished: list[HandLuck] = []
        #: (board, seats) -> each seat's share of a pot among them: a pot's equities do not
        #: change with the chips in it, so a street's are computed once
        self._cache: dict[tuple[tuple[int, ...], tuple[int, ...]], dict[int, float]] = {}

    def take(self) -> list[HandLuck]:
        out, self.finished = self.finished, []
        return out

    def sent(self, seat: int, text: str) -> None:
        for line in text.splitlines():
            if line.startswith('{"type":"match_start"'):
                self.stack = json.loads(line)["params"].get("stack", 0)
                self.hand = None
                continue
            event = wire.read(line)
            if isinstance(event, wire.HandStarted):
                self._started(seat, event)
            elif self.hand is None or seat != self.hand.reader:
                continue
            elif isinstance(event, (wire.ActionSeen, wire.StreetDealt)):
                self._notice(self.hand, event)
            elif isinstance(event, wire.HandEnded):
                self._ended(self.hand, event)

    def _started(self, seat: int, e: wire.HandStarted) -> None:
        if self.hand is None or self.hand.number != e.hand:
            seats = set(e.in_hand)
            self.hand = _Hand(e.hand, {s: self.stack - e.stacks[s] for s in seats},
                              {s: e.stacks[s] for s in seats}, seats, min(seats))
            self._cache.clear()
        self.hand.holes[seat] = (NUMBERS[e.cards[0]], NUMBERS[e.cards[1]])

    def _notice(self, hand: _Hand, e: wire.ActionSeen | wire.StreetDealt) -> None:
        self._deal(hand)
        if isinstance(e, wire.ActionSeen):
            hand.put_in[e.seat] += e.amount
            hand.behind[e.seat] = e.stack
            if e.action == "fold":
                hand.live.discard(e.seat)
            return
        board = tuple(NUMBERS[c] for c in e.board)
        closed = sum(1 for s in hand.live if hand.behind[s] > 0) <= 1
        self._term(hand, hand.board, board, ("aivat", "allin") if closed else ("aivat",))
        hand.board = board

    def _deal(self, hand: _Hand) -> None:
        """The deal's term, once: every seat's equity goes from 1/n in each pot to its cards'."""
        if hand.dealt:
            return
        hand.dealt = True
        pot_list = pots(hand.put_in, hand.live)
        after = self._shares(hand, ())
        for s in hand.live:
            before = sum(amount / len(who) for amount, who in pot_list if s in who)
            hand.terms["aivat"][s] = after.get(s, 0.0) - before

    def _term(self, hand: _Hand, old: tuple[int, ...], new: tuple[int, ...], kinds: tuple[str, ...]) -> None:
        before, after = self._shares(hand, old), self._shares(hand, new)
        for kind in kinds:
            for s in hand.live:
                hand.terms[kind][s] = hand.terms[kind].get(s, 0.0) + after[s] - before[s]

    def _shares(self, hand: _Hand, board: tuple[int, ...]) -> dict[int, float]:
        """Each live seat's expected chips from the pots as they stand, over the boards to come."""
        pot_list = [(amount, tuple(sorted(who))) for amount, who in pots(hand.put_in, hand.live)]
        missing = [g for _, g in pot_list if (board, g) not in self._cache]
        if missing:
            absent = sorted(s for s in hand.live if s not in hand.holes)
            if absent:
                raise ValueError(f"hand {hand.number}: no hole cards seen for seats {absent}")
            for group, found in equities(hand.holes, board, sorted(set(missing)), self.rng).items():
                self._cache[(board, group)] = found
        out = dict.fromkeys(hand.live, 0.0)
        for amount, group in pot_list:
            for s, eq in self._cache[(board, group)].items():
                out[s] += amount * eq
        return out

    def _ended(self, hand: _Hand, e: wire.HandEnded) -> None:
        self._deal(hand)
        n = len(e.profits)
        self.finished.append(HandLuck(
            payoffs=tuple(float(p) for p in e.profits),
            terms={kind: tuple(t.get(s, 0.0) for s in range(n)) for kind, t in hand.terms.items()}))
        self.hand = None
