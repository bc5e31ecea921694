"""Matching pennies (``pennies``): an example game, packaged on its own.

Rules
=====

* Two seats. Seat 0 is the *matcher*, seat 1 the *mismatcher*.
* A match is ``throws`` throws (100 by default). In each throw both seats
  choose a side of a coin, heads or tails, at the same time, without seeing
  the other's choice.
* If the sides are the same the matcher wins one point from the mismatcher;
  otherwise the mismatcher wins one point from the matcher.
* After each throw both seats are told both choices.
* A seat's score is its points: the two scores always add up to zero.
* Fault rule: a seat that faults scores the worst it could still have ended
  with (its points so far minus one for every throw not played); the other
  seat keeps its points.

Wire protocol (JSON lines, the arena's framing)
===============================================

``match_start`` -> ``{"type": "ready"}``; then per throw
``{"type": "choose", "round": N}`` -> ``{"type": "coin", "side": "heads"|"tails"}``
and the notification ``{"type": "round_result", "round": N, "sides": [s0, s1]}``
(``round`` counts the throws from 0); then ``match_end``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from games import GameSpec
from protocols import GamePlugin, MatchOutcome
from protocols.seatview import Choice, SeatView, Turn
from protocols.jsonlines import (
    FRAMING_MODELS, MatchIndex, Message, Reply, abandoned, ask_all, end_match, start_match, tell,
)

HERE = Path(__file__).resolve().parent
SIDES = ("heads", "tails")


class PenniesParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    # "rounds" until 0.2, a word that a tournament's --rounds also used
    throws: int = Field(default=100, ge=1, le=1_000_000, validation_alias=AliasChoices("throws", "rounds"),
                        description="throws in a match")


class Choose(Message):
    type: Literal["choose"] = "choose"
    round: int = Field(description="the throw, from 0")


class Coin(Reply):
    type: Literal["coin"]
    side: Literal["heads", "tails"]


class RoundResult(Message):
    type: Literal["round_result"] = "round_result"
    round: int
    sides: list[str] = Field(description="both seats' sides, in seat order")


def winner(sides: tuple[str, str]) -> int:
    """The seat that wins a round: the matcher (0) on equal sides."""
    return 0 if sides[0] == sides[1] else 1


class PenniesMatch:
    """One match as a dialogue (sans-I/O): what the arena drives."""

    def __init__(self, params: PenniesParams, names: list[str], match_index: MatchIndex) -> None:
        self.params, self.names, self.match_index = params, names, match_index
        self.points = [0, 0]
        self.played = 0
        self.sides: list[tuple[str, str]] = []  # every finished throw, both sides: told to both seats

    def context(self) -> dict[str, Any]:
        return {"round": self.played}

    def standings(self) -> tuple[int, list[int]]:
        return self.played, list(self.points)

    def scores(self) -> list[float]:
        return [float(p) for p in self.points]

    def known(self, seat: int) -> tuple:
        # Both sides of every finished throw, never the other seat's side of the throw in play.
        return (seat, self.played, tuple(self.sides))

    def forfeit(self, seat: int) -> list[float]:
        scores = self.scores()
        scores[seat] -= self.params.throws - self.played
        return scores

    def abandon(self) -> list[tuple[int, bytes]]:
        return abandoned(self.match_index, self.scores(), 2)

    def run(self):
        yield from start_match("pennies", 1, self.match_index, self.names, self.params, ["matcher", "mismatcher"])
        for n in range(self.params.throws):
            coins = yield from ask_all([(0, Choose(round=n)), (1, Choose(round=n))], Coin,
                                       '{"type": "coin", "side": "heads" or "tails"}')
            sides = (coins[0].side, coins[1].side)
            self.sides.append(sides)
            won = winner(sides)
            self.points[won] += 1
            self.points[1 - won] -= 1
            self.played = n + 1
            yield from tell([(s, RoundResult(round=n, sides=list(sides))) for s in (0, 1)])
        yield from end_match(self.match_index, self.scores(), 2)
        return MatchOutcome(payoffs=list(self.points), hands=self.played)


class PenniesPlugin(GamePlugin[PenniesParams]):
    spec = GameSpec(id="pennies", version=1, title="matching pennies", min_seats=2, max_seats=2,
                    description="Both seats show heads or tails; the matcher wins equal sides.")
    Params = PenniesParams
    payoff_label = score_label = "points"
    hand_label = "throws"
    rules = __doc__ or ""
    reusable_processes = True
    max_reply_bytes = 256
    message_models = (*FRAMING_MODELS, Choose, Coin, RoundResult)
    playthrough_matches = (({"throws": 6}, 7),)

    def invariants(self, params: PenniesParams) -> tuple[str, ...]:
        return ("zero_sum",)  # every point one seat wins, the other loses

    def open_dialogue(self, params: PenniesParams, rng: random.Random, names: list[str],
                      match_index: MatchIndex = 0) -> PenniesMatch:
        return PenniesMatch(params, names, match_index)  # no chance in this game

    def legal_replies(self, run: PenniesMatch, seat: int, payload: bytes) -> list[str]:
        # every reply the rules allow here: check-game holds the dialogue to it
        if json.loads(payload)["type"] == "match_start":
            return ['{"type": "ready"}']
        return [json.dumps({"type": "coin", "side": side}) for side in SIDES]

    def random_reply(self, run: PenniesMatch, seat: int, payload: bytes, rng: random.Random) -> str:
        kind = json.loads(payload)["type"]
        if kind == "match_start":
            return '{"type": "ready"}'
        return json.dumps({"type": "coin", "side": rng.choice(SIDES)})

    def seat_view(self, params: PenniesParams, seat: int) -> "PenniesSeatView":
        return PenniesSeatView(seat, params.model_dump(mode="json"))

    def reference_opponents(self) -> Path:
        return HERE / "bots" / "opponents.json"

    def playthrough_file(self) -> Path:
        return HERE / "golden" / "pennies.playthrough"


class PenniesSeatView(SeatView):
    """What a person in a seat sees: each throw's question, and its result."""

    def feed(self, line: str) -> Turn | None:
        m = json.loads(line)
        if m["type"] == "choose":
            return Turn([f"Throw {m['round'] + 1}"], [Choice(side) for side in SIDES], question="Your side")
        if m["type"] == "round_result":
            other = m["sides"][1 - self.seat]
            won = winner((m["sides"][0], m["sides"][1])) == self.seat
            return Turn([f"  your opponent showed {other}: you {'win' if won else 'lose'} the throw"])
        return super().feed(line)  # match_start and match_end: the framing's, understood by the base

    def reply(self, choice: Choice, amount: int | None) -> str:
        return json.dumps({"type": "coin", "side": choice.word})


PLUGIN = PenniesPlugin()
