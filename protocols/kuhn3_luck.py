"""kuhn3's luck (protocols/luck.py): the deal's term of every hand, read
from the lines the arena sends the seats.

The value function is the showdown value of the antes: what a seat would
win if every seat checked, ``antes * [its card is the highest dealt] - its
ante``. Before the deal each of the three seats holds the highest card
dealt with probability 1/3 (three cards of four, dealt alike), so the deal's
term is ``antes * ([highest] - 1/3)``: positive for the seat dealt the best
card, negative for the others, zero on average. The deal is kuhn3's only
chance event, so ``aivat`` is this term and there is no all-in.
"""

from __future__ import annotations

from . import kuhn3_wire as wire
from .luck import HandLuck

RANKS = "JQKA"
SEATS = 3


class Kuhn3Luck:
    """The reader: ``sent(seat, text)`` for every line the arena sends a seat,
    ``take()`` for the hands finished since."""

    def __init__(self, seed: str = "") -> None:  # (no sampling: the seed is not needed)
        self._readers = [wire.SeatReader() for _ in range(SEATS)]
        self._antes = [0] * SEATS  # the antes' total, as each seat was told it
        self._hand = [-1] * SEATS  # the hand each seat was last dealt
        self._cards: dict[int, dict[int, str]] = {}
        self._nets: dict[int, dict[int, int]] = {}
        self.finished: list[HandLuck] = []

    def take(self) -> list[HandLuck]:
        out, self.finished = self.finished, []
        return out

    def sent(self, seat: int, text: str) -> None:
        reader = self._readers[seat]
        for line in text.splitlines():
            event = reader.feed(line)
            if isinstance(event, wire.RoundStarted):
                self._antes[seat] = sum(event.antes)
            elif isinstance(event, wire.HandDealt):
                self._hand[seat] = event.hand
                self._cards.setdefault(event.hand, {})[seat] = event.card
            elif isinstance(event, wire.HandEnded):
                hand = self._hand[seat]
                # the receiver is local seat 0: its chips in front, and the pots it won
                won = sum(pot.amount for pot in event.pots if pot.winner == 0)
                self._nets.setdefault(hand, {})[seat] = won - event.actions[0].amount
                self._finish(hand)

    def _finish(self, hand: int) -> None:
        nets, cards = self._nets.get(hand, {}), self._cards.get(hand, {})
        if len(nets) < SEATS or len(cards) < SEATS:
            return
        best = max(cards.values(), key=RANKS.index)
        terms = tuple(self._antes[s] * ((cards[s] == best) - 1 / SEATS) for s in range(SEATS))
        self.finished.append(HandLuck(payoffs=tuple(float(nets[s]) for s in range(SEATS)), terms={"aivat": terms}))
        del self._nets[hand], self._cards[hand]
