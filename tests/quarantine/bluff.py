"""Bluff (``bluff``): a small hidden-information game written as a game
author would, from docs/games.md alone, to show what ``arena check-game``
catches. tests/quarantine/bluff_planted.py keeps versions of it with one
planted mistake each.

Rules
=====

* Two or three seats. Every hand each seat rolls ``dice`` dice with
  ``faces`` faces and sees only its own.
* Starting with seat ``hand mod seats``, seats take turns either to bid
  "at least COUNT dice on the table show FACE", or to call the last bid.
  A bid must beat the last one: a higher count, or the same count and a
  higher face. COUNT is from 1 to all dice on the table.
* On a call every seat's dice are shown. If the bid holds the caller loses
  the hand, else the bidder does. The loser pays one point to every other
  seat.
* A match is ``hands`` hands. Fault rule: the faulting seat scores its
  points so far minus the most it could still lose (seats - 1 per hand not
  finished); the others keep their points.

Wire protocol (JSON lines, the arena's framing)
===============================================

``match_start`` -> ``{"type": "ready"}``; per hand the notification
``{"type": "roll", "hand": H, "dice": [...]}`` (your own dice); on your turn
``{"type": "turn", "hand": H, "bid": [COUNT, FACE] or null}`` ->
``{"type": "bid", "count": C, "face": F}`` or ``{"type": "call"}``; every
seat is told ``{"type": "said", "seat": S, "bid": [C, F] or null}``; the hand
ends with ``{"type": "reveal", "hand": H, "dice": [[...], ...], "loser": L}``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from games import GameSpec
from protocols import Exchange, GamePlugin, MatchOutcome, ProtocolError, private_chance
from protocols.seatview import Choice, SeatView, Turn
from protocols.jsonlines import (
    FRAMING_MODELS, MatchIndex, Message, Reply, abandoned, decode, encode, end_match, start_match, tell,
)


class BluffParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    hands: int = Field(default=3, ge=1, le=1000, description="hands in a match")
    dice: int = Field(default=2, ge=1, le=5, description="dice each seat rolls per hand")
    faces: int = Field(default=4, ge=2, le=6, description="faces of each die")


class Roll(Message):
    type: Literal["roll"] = "roll"
    hand: int
    dice: list[int] = Field(description="your own dice")


class TurnMessage(Message):
    type: Literal["turn"] = "turn"
    hand: int
    bid: list[int] | None = Field(description="the bid to beat, [count, face], or null to open")


class Said(Message):
    type: Literal["said"] = "said"
    seat: int
    bid: list[int] | None = Field(description="the bid made, or null for a call")


class Reveal(Message):
    type: Literal["reveal"] = "reveal"
    hand: int
    dice: list[list[int]] = Field(description="every seat's dice, in seat order")
    loser: int


class Bid(Reply):
    type: Literal["bid"]
    count: int = Field(ge=1, le=15)
    face: int = Field(ge=1, le=6)


class Call(Reply):
    type: Literal["call"]


EXPECT = '{"type": "bid", "count": C, "face": F} beating the last bid, or {"type": "call"}'


class BluffEngine:
    """The rules of one hand, with no wire: what may be said and who loses."""

    def __init__(self, params: BluffParams, dice: list[list[int]], opener: int) -> None:
        self.params, self.dice, self.turn = params, dice, opener
        self.bid: tuple[int, int] | None = None
        self.bidder: int | None = None

    def legal(self) -> list[tuple[int, int] | None]:
        """Every action: a bid (count, face), or None for a call."""
        total = self.params.dice * len(self.dice)
        bids = [(c, f) for c in range(1, total + 1) for f in range(1, self.params.faces + 1)
                if self.bid is None or (c, f) > self.bid]
        return bids + ([None] if self.bid is not None else [])

    def beats(self, bid: tuple[int, int]) -> bool:
        return self.bid is None or bid > self.bid

    def act(self, action: tuple[int, int] | None) -> int | None:
        """Play ``action`` for the seat to move; the loser when it was a call."""
        if action is None:
            assert self.bid is not None and self.bidder is not None
            count, face = self.bid
            held = sum(d.count(face) for d in self.dice) >= count
            return self.turn if held else self.bidder
        self.bid, self.bidder = action, self.turn
        self.turn = (self.turn + 1) % len(self.dice)
        return None


class BluffMatch:
    def __init__(self, params: BluffParams, rng: random.Random, names: list[str], match_index: MatchIndex) -> None:
        self.params, self.rng, self.names, self.match_index = params, rng, names, match_index
        self.seats = len(names)
        self.points = [0] * self.seats
        self.played = 0
        self.engine: BluffEngine | None = None
        self.shown = False
        self.said: list[tuple[int, tuple[int, int] | None]] = []  # this hand's bids and call, by seat

    def context(self) -> dict[str, Any]:
        return {"hand": self.played}

    def standings(self) -> tuple[int, list[int]]:
        return self.played, list(self.points)

    def scores(self) -> list[float]:
        return [float(p) for p in self.points]

    def forfeit(self, seat: int) -> list[float]:
        scores = self.scores()
        scores[seat] -= (self.seats - 1) * (self.params.hands - self.played)
        return scores

    def revealed(self, seat: int) -> bool:
        return self.shown

    def known(self, seat: int) -> tuple:
        # Its own dice, what was said this hand, the points; every seat's dice once shown.
        engine = self.engine
        own = tuple(engine.dice[seat]) if engine else None
        shown = tuple(map(tuple, engine.dice)) if engine and self.shown else None
        return (seat, self.played, tuple(self.points), own, tuple(self.said), shown)

    def abandon(self) -> list[tuple[int, bytes]]:
        return abandoned(self.match_index, self.scores(), self.seats)

    def opener(self, hand: int) -> int:
        return hand % self.seats

    def pay(self, loser: int) -> None:
        for s in range(self.seats):
            self.points[s] += 1 if s != loser else -(self.seats - 1)

    def roll(self, seat: int) -> list[int]:
        hidden = private_chance(self.rng, seat)
        return sorted(hidden.randint(1, self.params.faces) for _ in range(self.params.dice))

    def tell_roll(self, hand: int, dice: list[list[int]]) -> list[tuple[int, Roll]]:
        return [(s, Roll(hand=hand, dice=dice[s])) for s in range(self.seats)]

    def read(self, seat: int, line: str) -> tuple[int, int] | None:
        try:
            kind = json.loads(line).get("type")
        except (ValueError, AttributeError, RecursionError):
            kind = None  # not an object: ``decode`` below says so in words
        if kind == "call":
            decode(seat, line, Call, EXPECT)
            if self.engine.bid is None:
                raise ProtocolError(seat, "illegal_action", line, EXPECT, "there is no bid to call yet")
            return None
        bid = decode(seat, line, Bid, EXPECT)
        return self.check_bid(seat, line, (bid.count, bid.face))

    def check_bid(self, seat: int, line: str, bid: tuple[int, int]) -> tuple[int, int]:
        engine = self.engine
        total = self.params.dice * self.seats
        if not 1 <= bid[0] <= total or not 1 <= bid[1] <= self.params.faces:
            raise ProtocolError(seat, "illegal_action", line, EXPECT,
                                f"a bid is 1 to {total} dice of a face from 1 to {self.params.faces}")
        if not engine.beats(bid):
            raise ProtocolError(seat, "illegal_action", line, EXPECT,
                                f"bid {list(bid)} does not beat the last bid {list(engine.bid)}")
        return bid

    def run(self):
        yield from start_match("bluff", 1, self.match_index, self.names, self.params)
        for hand in range(self.params.hands):
            dice = [self.roll(s) for s in range(self.seats)]
            self.engine = BluffEngine(self.params, dice, self.opener(hand))
            self.shown = False
            self.said = []
            yield from tell(self.tell_roll(hand, dice))
            loser = None
            while loser is None:
                seat = self.engine.turn
                last = list(self.engine.bid) if self.engine.bid else None
                (line,) = yield Exchange([(seat, encode(TurnMessage(hand=hand, bid=last)))], expect=EXPECT)
                action = self.read(seat, line)
                loser = self.engine.act(action)
                self.said.append((seat, action))
                yield from tell([(s, Said(seat=seat, bid=None if action is None else list(action)))
                                 for s in range(self.seats)])
            self.shown = True
            self.pay(loser)
            self.played = hand + 1
            yield from tell([(s, Reveal(hand=hand, dice=dice, loser=loser)) for s in range(self.seats)])
        yield from end_match(self.match_index, self.scores(), self.seats)
        return MatchOutcome(payoffs=list(self.points), hands=self.played)


class BluffPlugin(GamePlugin[BluffParams]):
    spec = GameSpec(id="bluff", version=1, title="bluff", min_seats=2, max_seats=3,
                    description="Bid on hidden dice; call a bid you do not believe.")
    Params = BluffParams
    rules = __doc__ or ""
    reusable_processes = True
    max_reply_bytes = 256
    message_models = (*FRAMING_MODELS, Roll, TurnMessage, Said, Reveal, Bid, Call)
    playthrough_matches = (({"hands": 2}, 7),)
    match_class = BluffMatch

    def __init__(self, golden: Path | None = None) -> None:
        self.golden = golden

    def open_dialogue(self, params: BluffParams, rng: random.Random, names: list[str],
                      match_index: MatchIndex = 0) -> BluffMatch:
        return self.match_class(params, rng, names, match_index)

    def legal_replies(self, run: BluffMatch, seat: int, payload: bytes) -> list[str]:
        if json.loads(payload)["type"] == "match_start":
            return ['{"type": "ready"}']
        return [json.dumps({"type": "call"}) if a is None else json.dumps({"type": "bid", "count": a[0], "face": a[1]})
                for a in run.engine.legal()]

    def random_reply(self, run: BluffMatch, seat: int, payload: bytes, rng: random.Random) -> str:
        legal = self.legal_replies(run, seat, payload)
        # call more often as bids climb, so hands end
        calls = [r for r in legal if '"call"' in r]
        if calls and rng.random() < 0.4:
            return calls[0]
        return rng.choice(legal[: max(1, len(legal) // 3)])

    def playthrough_file(self) -> Path | None:
        return self.golden

    def invariants(self, params: BluffParams) -> tuple[str, ...]:
        return ("zero_sum",)  # the loser pays each other seat one point

    def seat_view(self, params: BluffParams, seat: int) -> "BluffSeatView":
        return BluffSeatView(seat, params.model_dump(mode="json"))


class BluffSeatView(SeatView):
    """A seat for a person: its dice, the bids, and each bid that beats the last by name (``2x3``: two threes)."""

    def feed(self, line: str) -> Turn | None:
        m = json.loads(line)
        kind = m.get("type")
        if kind == "roll":
            return Turn([f"Hand {m['hand'] + 1}: your dice {m['dice']}"])
        if kind == "turn":
            last = tuple(m["bid"]) if m["bid"] else None
            total = self.params["dice"] * self._seats
            bids = [Choice(f"{c}x{f}") for c in range(1, total + 1) for f in range(1, self.params["faces"] + 1)
                    if last is None or (c, f) > last]
            return Turn([], ([Choice("call")] if last else []) + bids, question="Your bid")
        if kind == "said":
            return Turn([f"  seat {m['seat']} {'calls' if m['bid'] is None else 'bids ' + str(m['bid'])}"])
        if kind == "reveal":
            return Turn([f"  dice {m['dice']}: seat {m['loser']} loses the hand"])
        if kind == "match_start":
            self._seats = len(m["players"])
        return super().feed(line)

    def reply(self, choice: Choice, amount: int | None) -> str:
        if choice.word == "call":
            return json.dumps({"type": "call"})
        count, face = choice.word.split("x")
        return json.dumps({"type": "bid", "count": int(count), "face": int(face)})


PLUGIN = BluffPlugin()
