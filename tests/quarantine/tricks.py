"""Tricks (``tricks``): a small trick-taking game, for the check of what a
seat may know where a seat's own moves depend on its hidden cards (a
re-drawn hand cannot replay the same plays, so a leak on the last trick
is only reached by a hand alike but for its last cards).

Rules
=====

* Two to four seats. Each seat is dealt ``cards`` cards of its own suit,
  different ranks from 1 to ``ranks``; it sees only its own.
* Seat 0 leads the first trick; in turn from the leader, every seat plays
  one of its cards. The highest rank wins the trick (on equal ranks the
  card played first), and its winner leads the next.
* A seat's payoff is the number of tricks it won: the payoffs add up to
  ``cards``. Fault rule: the faulting seat keeps the tricks it won and wins
  no more; the others keep theirs.

Wire protocol (JSON lines, the arena's framing)
===============================================

``match_start`` -> ``{"type": "ready"}``; then ``{"type": "deal", "cards":
[...]}`` (your cards); on your turn ``{"type": "your_play", "trick": T,
"played": [[seat, card], ...], "hand": [...]}`` (the trick so far, your
cards left) -> ``{"type": "play", "card": C}``; after each trick every seat
is told ``{"type": "trick", "trick": T, "played": [[seat, card], ...],
"winner": W, "left": [...]}`` (``left``: your cards left); then
``match_end``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from games import GameSpec
from protocols import Exchange, GamePlugin, MatchOutcome, ProtocolError, private_chance
from protocols.jsonlines import (
    FRAMING_MODELS, MatchIndex, Message, Reply, abandoned, decode, encode, end_match, start_match, tell,
)
from protocols.seatview import Choice, SeatView, Turn


class TricksParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    cards: int = Field(default=3, ge=1, le=6, description="cards dealt to each seat, one trick each")
    ranks: int = Field(default=9, ge=6, le=20, description="ranks of each seat's suit")


class Deal(Message):
    type: Literal["deal"] = "deal"
    cards: list[int]


class YourPlay(Message):
    type: Literal["your_play"] = "your_play"
    trick: int
    played: list[list[int]]
    hand: list[int]


class Play(Reply):
    type: Literal["play"]
    card: int = Field(ge=1, le=20)


class TrickOver(Message):
    type: Literal["trick"] = "trick"
    trick: int
    played: list[list[int]]
    winner: int
    left: list[int]


EXPECT = '{"type": "play", "card": C} with C one of your cards'


class TricksMatch:
    def __init__(self, params: TricksParams, rng: random.Random, names: list[str], match_index: MatchIndex) -> None:
        self.params, self.rng, self.names, self.match_index = params, rng, names, match_index
        self.seats = len(names)
        self.hands: list[list[int]] = []
        self.won = [0] * self.seats
        self.tricks = 0
        self.history: list[tuple[tuple[int, int], ...]] = []
        self.current: list[tuple[int, int]] = []

    def context(self) -> dict[str, Any]:
        return {"trick": self.tricks}

    def standings(self) -> tuple[int, list[int]]:
        return self.tricks, list(self.won)

    def scores(self) -> list[float]:
        return [float(w) for w in self.won]

    def forfeit(self, seat: int) -> list[float]:
        return self.scores()

    def abandon(self) -> list[tuple[int, bytes]]:
        return abandoned(self.match_index, self.scores(), self.seats)

    def known(self, seat: int) -> tuple:
        own = tuple(self.hands[seat]) if self.hands else None
        return (seat, self.tricks, own, tuple(self.history), tuple(self.current), tuple(self.won))

    def left(self, seat: int) -> list[int]:
        return sorted(self.hands[seat])

    def run(self):
        yield from start_match("tricks", 1, self.match_index, self.names, self.params)
        self.hands = [private_chance(self.rng, s).sample(range(1, self.params.ranks + 1), self.params.cards)
                      for s in range(self.seats)]
        yield from tell([(s, Deal(cards=sorted(self.hands[s]))) for s in range(self.seats)])
        leader = 0
        for trick in range(self.params.cards):
            self.current = []
            for k in range(self.seats):
                seat = (leader + k) % self.seats
                ask = YourPlay(trick=trick, played=[list(p) for p in self.current], hand=sorted(self.hands[seat]))
                (line,) = yield Exchange([(seat, encode(ask))], expect=EXPECT)
                card = decode(seat, line, Play, EXPECT).card
                if card not in self.hands[seat]:
                    raise ProtocolError(seat, "illegal_action", line, EXPECT, f"{card} is not one of your cards")
                self.hands[seat].remove(card)
                self.current.append((seat, card))
            winner = max(self.current, key=lambda p: (p[1], -self.current.index(p)))[0]
            self.won[winner] += 1
            self.tricks = trick + 1
            self.history.append(tuple(self.current))
            played = [list(p) for p in self.current]
            self.current = []
            yield from tell([(s, TrickOver(trick=trick, played=played, winner=winner, left=self.left(s)))
                             for s in range(self.seats)])
            leader = winner
        yield from end_match(self.match_index, self.scores(), self.seats)
        return MatchOutcome(payoffs=list(self.won), hands=self.tricks)


class TricksPlugin(GamePlugin[TricksParams]):
    spec = GameSpec(id="tricks", version=1, title="tricks", min_seats=2, max_seats=4,
                    description="Each seat plays one hidden card a trick; the highest wins it.")
    Params = TricksParams
    rules = __doc__ or ""
    reusable_processes = True
    max_reply_bytes = 256
    message_models = (*FRAMING_MODELS, Deal, YourPlay, Play, TrickOver)
    # five cards: a hand re-drawn whole replays one trick or two at most
    playthrough_matches = (({"cards": 5, "ranks": 12}, 7),)
    match_class = TricksMatch

    def __init__(self, golden: Path | None = None) -> None:
        self.golden = golden

    def open_dialogue(self, params: TricksParams, rng: random.Random, names: list[str],
                      match_index: MatchIndex = 0) -> TricksMatch:
        return self.match_class(params, rng, names, match_index)

    def invariants(self, params: TricksParams) -> tuple[str, ...]:
        return ("constant_sum",)

    def random_reply(self, run: TricksMatch, seat: int, payload: bytes, rng: random.Random) -> str:
        if json.loads(payload)["type"] == "match_start":
            return '{"type": "ready"}'
        return json.dumps({"type": "play", "card": rng.choice(sorted(run.hands[seat]))})

    def playthrough_file(self) -> Path | None:
        return self.golden

    def seat_view(self, params: TricksParams, seat: int) -> "TricksSeatView":
        return TricksSeatView(seat, params.model_dump(mode="json"))


class TricksSeatView(SeatView):
    def feed(self, line: str) -> Turn | None:
        m = json.loads(line)
        if m["type"] == "deal":
            return Turn([f"Your cards: {m['cards']}"])
        if m["type"] == "your_play":
            return Turn([f"Trick {m['trick'] + 1}: played so far {m['played']}"], [Choice(str(c)) for c in m["hand"]],
                        question="Play")
        if m["type"] == "trick":
            return Turn([f"  seat {m['winner']} wins the trick {m['played']}"])
        return super().feed(line)

    def reply(self, choice: Choice, amount: int | None) -> str:
        return json.dumps({"type": "play", "card": int(choice.word)})


class LastTrickMatch(TricksMatch):
    """Before the last trick, each seat is told the next seat's last card with its own."""

    def left(self, seat: int) -> list[int]:
        if self.tricks == self.params.cards - 1:
            return sorted(self.hands[seat] + self.hands[(seat + 1) % self.seats])
        return super().left(seat)


class LastTrick(TricksPlugin):
    match_class = LastTrickMatch
