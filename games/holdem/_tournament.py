"""A freezeout tournament: the stacks between hands, the button, the blind
levels and the finishing places. Pure; the hands are ``HoldemHand``."""

from __future__ import annotations

from ._params import HoldemParams
from ._rules import HoldemHand


class Freezeout:
    """Equal stacks; a seat with no chips is out; the last seat with chips wins."""

    def __init__(self, seats: int, params: HoldemParams, first_button: int) -> None:
        self.params = params
        self.stacks = [params.stack] * seats
        #: finishing place per seat (1 = the winner), averaged for ties; None while in
        self.places: list[float | None] = [None] * seats
        self.hands = 0
        self.button = first_button % seats
        self.dropped: set[int] = set()

    @property
    def over(self) -> bool:
        return all(p is not None for p in self.places)

    def blinds(self) -> tuple[int, int, int]:
        return self.params.blinds(self.hands)

    def next_button(self) -> int:
        """The button of the next hand: it moves one seat with chips to the
        left after every hand (the first hand keeps the starting seat)."""
        n = len(self.stacks)
        if self.hands or not self.stacks[self.button]:  # (a dropped seat cannot start on it)
            self.button = next(s for s in ((self.button + i) % n for i in range(1, n + 1)) if self.stacks[s])
        return self.button

    def drop(self, seat: int) -> None:
        """``seat`` leaves for good (it faulted): last place, its chips out of
        play (a hand in play goes on without it: see ``HoldemHand.fold_out``)."""
        self.dropped.add(seat)
        self.stacks[seat] = 0
        self.places[seat] = float(len(self.stacks))
        alive = [s for s in range(len(self.stacks)) if self.stacks[s]]
        if len(alive) == 1:
            self.places[alive[0]] = 1

    def record(self, hand: HoldemHand) -> list[int]:
        """Take the stacks after ``hand``; returns the seats it knocked out."""
        before = hand.start
        self.stacks = [0 if s in self.dropped else chips for s, chips in enumerate(hand.stack)]
        self.hands += 1
        out = [s for s in hand.order if not self.stacks[s] and s not in self.dropped]
        alive = [s for s in range(len(self.stacks)) if self.stacks[s]]
        # Seats out in the same hand: more chips at its start place higher;
        # equal stacks share their places.
        place = len(alive) + 1
        for start in sorted({before[s] for s in out}, reverse=True):
            tied = [s for s in out if before[s] == start]
            shared = place + (len(tied) - 1) / 2
            for s in tied:
                self.places[s] = shared
            place += len(tied)
        if len(alive) == 1:
            self.places[alive[0]] = 1
        return out

    def points(self) -> list[float]:
        """Points per seat once over: with N seats, place p scores N - p."""
        n = len(self.stacks)
        return [float(n - p) if p is not None else 0.0 for p in self.places]
