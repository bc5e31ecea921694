"""Versions of tests/quarantine/bluff.py, each with one mistake a game author
made for real (issues 28 and 43) and ``arena check-game`` must name."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from protocols import GamePlugin, ProtocolError

from . import bluff
from .bluff import EXPECT, BluffMatch, BluffPlugin, BluffParams, Roll


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


# -- issue 43: what an author who opts in to nothing, or slips once, leaves ------------------


class OpaqueMatch(BluffMatch):
    known = None  # no known(seat)


class Opaque(BluffPlugin):
    """No seat view, no known, no invariants, no legal set: nothing can be checked."""

    match_class = OpaqueMatch
    seat_view = GamePlugin.seat_view

    def invariants(self, params):
        return None

    def legal_replies(self, run, seat, payload):
        return None

    def random_reply(self, run, seat, payload, rng):
        return _random(run, payload, rng)


def _random(run: BluffMatch, payload: bytes, rng) -> str:
    """The legal replies the clean game's engine gives, without the game declaring them."""
    import json

    if json.loads(payload)["type"] == "match_start":
        return '{"type": "ready"}'
    legal = run.engine.legal()
    bids = [a for a in legal if a is not None][:4]
    action = None if None in legal and (not bids or rng.random() < 0.4) else rng.choice(bids)
    return json.dumps({"type": "call"}) if action is None else json.dumps({"type": "bid", "count": action[0],
                                                                           "face": action[1]})


class NeighbourMatch(BluffMatch):
    """Dice drawn straight from the match's stream (no private_chance), and each
    seat told the next seat's dice with its own."""

    def roll(self, seat: int) -> list[int]:
        return sorted(self.rng.randint(1, self.params.faces) for _ in range(self.params.dice))

    def tell_roll(self, hand: int, dice: list[list[int]]) -> list[tuple[int, Roll]]:
        return [(s, Roll(hand=hand, dice=dice[s] + dice[(s + 1) % self.seats])) for s in range(self.seats)]


class LastHandMatch(BluffMatch):
    """In the last hand only, each seat is told the next seat's dice too (the leak on the last trick)."""

    def tell_roll(self, hand: int, dice: list[list[int]]) -> list[tuple[int, Roll]]:
        if hand < self.params.hands - 1:
            return super().tell_roll(hand, dice)
        return [(s, Roll(hand=hand, dice=dice[s] + dice[(s + 1) % self.seats])) for s in range(self.seats)]


class UnevenMatch(BluffMatch):
    """With three seats the loser pays one point in all, not one to each: the sum drifts from zero."""

    def pay(self, loser: int) -> None:
        self.points[loser] -= 1
        for s in range(self.seats):
            if s != loser:
                self.points[s] += 1


class IgnoringParams(BluffParams):
    wild: bool = Field(default=False, description="ones count as any face (accepted, and never read)")


class IndexMatch(BluffMatch):
    """The opener follows the match's place in a series, read as one number."""

    def opener(self, hand: int) -> int:
        return (hand + self.match_index) % self.seats


class Neighbour(BluffPlugin):
    match_class = NeighbourMatch


class LastHand(BluffPlugin):
    match_class = LastHandMatch


class Uneven(BluffPlugin):
    match_class = UnevenMatch


class Ignoring(BluffPlugin):
    Params: ClassVar[type[BaseModel]] = IgnoringParams


class RulesMismatch(BluffPlugin):
    """The rules page calls the roll's field ``pips``; the wire says ``dice``."""

    rules = (bluff.__doc__ or "").replace('{"type": "roll", "hand": H, "dice": [...]}',
                                          '{"type": "roll", "hand": H, "pips": [...]}')


class Indexed(BluffPlugin):
    match_class = IndexMatch


class LaxByView(Lax):
    """Lax, with no legal set: only the seat view names the legal bids."""

    def legal_replies(self, run, seat, payload):
        return None

    def random_reply(self, run, seat, payload, rng):
        return _random(run, payload, rng)


class MisblamingByView(Misblaming):
    def legal_replies(self, run, seat, payload):
        return None

    def random_reply(self, run, seat, payload, rng):
        return _random(run, payload, rng)
