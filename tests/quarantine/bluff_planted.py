"""Five versions of tests/quarantine/bluff.py, each with one mistake a game
author made for real (issue 28) and ``arena check-game`` must name."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from protocols import ProtocolError

from .bluff import EXPECT, BluffMatch, BluffPlugin, Roll


class LeakingMatch(BluffMatch):
    """Every seat is sent every seat's dice with its roll."""

    def tell_roll(self, hand: int, dice: list[list[int]]) -> list[tuple[int, Roll]]:
        everyone = [d for row in dice for d in row]
        return [(s, Roll(hand=hand, dice=everyone)) for s in range(self.seats)]


class LaxMatch(BluffMatch):
    """A bid of the same count is accepted whatever its face."""

    def check_bid(self, seat: int, line: str, bid: tuple[int, int]) -> tuple[int, int]:
        total = self.params.dice * self.seats
        if not 1 <= bid[0] <= total or not 1 <= bid[1] <= self.params.faces:
            raise ProtocolError(seat, "illegal_action", line, EXPECT, "no such bid")
        if self.engine.bid is not None and bid[0] < self.engine.bid[0]:
            raise ProtocolError(seat, "illegal_action", line, EXPECT, "a bid may not lower the count")
        return bid


class UnboundedParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    hands: int = Field(default=3, ge=1, le=1000, description="hands in a match")
    dice: int = Field(default=2, description="dice each seat rolls per hand")
    faces: int = Field(default=4, ge=2, le=6, description="faces of each die")


class MisblamingMatch(BluffMatch):
    """An illegal bid is charged to the seat that made the last bid."""

    def check_bid(self, seat: int, line: str, bid: tuple[int, int]) -> tuple[int, int]:
        try:
            return super().check_bid(seat, line, bid)
        except ProtocolError as exc:
            blamed = self.engine.bidder if self.engine.bidder is not None else (seat - 1) % self.seats
            raise ProtocolError(blamed, exc.kind, line, EXPECT, exc.reason) from None


class RewardingMatch(BluffMatch):
    """The fault rule pays the faulting seat 100 points."""

    def forfeit(self, seat: int) -> list[float]:
        scores = self.scores()
        scores[seat] += 100
        return scores


class Leaking(BluffPlugin):
    match_class = LeakingMatch


class Lax(BluffPlugin):
    match_class = LaxMatch


class Unbounded(BluffPlugin):
    Params: ClassVar[type[BaseModel]] = UnboundedParams


class Misblaming(BluffPlugin):
    match_class = MisblamingMatch


class Rewarding(BluffPlugin):
    match_class = RewardingMatch
