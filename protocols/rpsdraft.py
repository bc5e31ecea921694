"""The rpsdraft JSON-lines protocol, as a sans-I/O dealer dialogue.

``RpsDraftDealer.run()`` is a generator of ``Exchange`` objects. The
choreography follows the seed's four bot functions:

    match_start -> ready                                  (both seats)
    per draft round:  draft_pick -> pick      (draftPick, both seats at once)
                      draft_receive           (draftReceive, a notification)
    per turn:         main_play -> play       (mainPlay, both seats at once)
                      turn_result             (mainPostprocess, a notification)
    match_end                                             (a notification)

An index that is not a position among the bot's choices is the seed's
"invalid index" and ends the match as an illegal_action, whatever its JSON
type; a reply that is not a pick/play object at all is malformed. Choices
where the seed is silent are listed in docs/protocols/rpsdraft.md.
"""

from __future__ import annotations

import random
import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, WithJsonSchema

import games.rpsdraft
from games import GameSpec, IllegalAction
from games.rpsdraft import FULL_DECK, SEATS, Phase, RpsDraftMatch, RpsDraftParams

from ._builtin import BuiltinGame
from ._contract import Exchange, MatchOutcome
from ._errors import ProtocolError
from .seatview import Choice, SeatView, Turn
from .jsonlines import (
    FRAMING_MODELS, MatchIndex, Message, Reply, abandoned, decode, encode, end_match, match_number, start_match, tell,
)

GAME = "rpsdraft"
VERSION = 1

# Any JSON value is accepted here so that a wrong index of any type is judged
# by the rules (illegal_action), as the seed disqualifies any invalid index.
Index = Annotated[
    Any,
    WithJsonSchema({"type": "integer", "minimum": 0, "description": "a position in the list of choices, from 0"}),
]


class DraftPick(Message):
    """draftPick: choose one of two cards; the other goes to the opponent."""

    type: Literal["draft_pick"] = "draft_pick"
    round: int = Field(description="draft round, from 0")
    cards: list[str] = Field(description="the two cards offered to this seat")


class Pick(Reply):
    type: Literal["pick"]
    index: Index = Field(description="0 or 1: the card this seat keeps")


class DraftReceive(Message):
    """draftReceive: the card the opponent did not keep, now in this seat's deck."""

    type: Literal["draft_receive"] = "draft_receive"
    round: int
    card: str


class MainPlay(Message):
    """mainPlay: play one card of the hand against the base card."""

    type: Literal["main_play"] = "main_play"
    turn: int = Field(description="turn, from 0")
    hand: list[str] = Field(description="this seat's hand, in order")
    base: str = Field(description="the base card of this turn")


class Play(Reply):
    type: Literal["play"]
    index: Index = Field(description="position in the hand of the card to play")


class TurnResult(Message):
    """mainPostprocess: the opponent's card (plus the outcome of the turn)."""

    type: Literal["turn_result"] = "turn_result"
    turn: int
    base: str
    your_card: str
    opponent_card: str
    winner: int = Field(description="the seat that won the turn")
    turns_won: list[int] = Field(description="turns won so far by every seat, in seat order")


MODELS: list[type[BaseModel]] = [DraftPick, Pick, DraftReceive, MainPlay, Play, TurnResult]

Chance = Callable[[RpsDraftMatch], object]

_EXPECT_PICK = '{"type": "pick", "index": 0 or 1}'


def _expect_play(n: int) -> str:
    return f'{{"type": "play", "index": 0 to {n - 1}}}'


class RpsDraftDealer:
    """Runs one rpsdraft match over JSON lines; ``chance`` orders the decks."""

    def __init__(self, params: RpsDraftParams, chance: Chance, names: list[str] | None = None,
                 match_index: MatchIndex = 0) -> None:
        self.params = params
        self.match = RpsDraftMatch(params)
        self._chance = chance
        self.names = list(names) if names is not None else [f"seat{s}" for s in range(SEATS)]
        self.match_index = match_index
        # For ``known``: where the dialogue stands, and what each seat has
        # been shown, in order (the engine forgets the draft once the decks
        # are shuffled, and deals the next base and card before they are shown).
        self._stage = "match_start"
        self._seen: list[list[tuple]] = [[] for _ in range(SEATS)]

    def context(self) -> dict[str, Any]:
        """The turn being played ("hand"), or the draft round during the draft."""
        m = self.match
        if m.phase is Phase.PLAY:
            return {"hand": m.turn, "phase": "main", "turn": m.turn}
        if m.phase is Phase.DRAFT:
            return {"hand": None, "phase": "draft", "draft_round": m.draft_round}
        return {"hand": None, "phase": m.phase.value}

    def standings(self) -> tuple[int, list[int]]:
        """Turns completed so far and every seat's turns won."""
        return self.match.turn, list(self.match.won)

    def scores(self) -> list[float]:
        """The seed's score: turns won."""
        return [float(w) for w in self.match.won]

    def forfeit(self, seat: int) -> list[float]:
        """The fault rule: a faulting seat wins no more turns (the worst it could
        have had); turns it won stay won, as the seed's score cannot go down.
        Ranked below every seat that did not fault, and by default (as in the
        seed's tournament) disqualified at its first fault."""
        return self.scores()

    def abandon(self) -> list[tuple[int, bytes]]:
        """Every seat's ``match_end`` (not completed) when another seat faulted."""
        return abandoned(self.match_index, self.scores(), SEATS)

    def known(self, seat: int) -> tuple:
        """What ``seat`` may know now: the match (players, parameters, its
        match number), where the dialogue stands, every turn won, and in
        order what it was shown: each draft round's two offered cards, the
        one it kept and the one it received; its hand and the base of each
        turn; both cards played and the winner of each finished turn. Never
        a card of the opponent's it was not shown, nor one not yet drawn."""
        return (match_number(self.match_index, seat), seat, tuple(self.names),
                tuple(sorted(self.params.model_dump().items())), self._stage, tuple(self.match.won),
                tuple(self._seen[seat]))

    def _show(self, stage: str, fact: Callable[[int], tuple]) -> None:
        self._stage = stage
        for s in range(SEATS):
            self._seen[s].append(fact(s))

    def _ask_both(self, messages, model, expected: str):
        """Ask both seats at once; check each reply in seat order (fail-fast)."""
        m = self.match
        lines = yield Exchange([(s, encode(msg)) for s, msg in enumerate(messages)], expected)
        replies = []
        for seat, line in enumerate(lines):
            reply = decode(seat, line, model, expected)
            try:
                m.check_index(seat, reply.index)
            except IllegalAction as exc:
                raise ProtocolError(seat, "illegal_action", line, expected, str(exc)) from None
            replies.append(reply)
        m.apply((replies[0].index, replies[1].index))

    def run(self):  # -> Dialogue
        m = self.match
        yield from start_match(GAME, VERSION, self.match_index, self.names, self.params)
        m.apply_chance(self._chance(m))
        while m.phase is Phase.DRAFT:
            r = m.draft_round
            self._show("draft_pick", lambda s: ("offered", r, tuple(m.options(s))))
            yield from self._ask_both(
                [DraftPick(round=r, cards=m.options(s)) for s in range(SEATS)], Pick, _EXPECT_PICK
            )
            received = m.last_draft
            assert received is not None
            # a seat's deck grows by the card it kept, then the card it received
            self._show("draft_receive", lambda s: ("drafted", r, m.decks[s][-2], received[s]))
            yield from tell([(s, DraftReceive(round=r, card=received[s])) for s in range(SEATS)])
        m.apply_chance(self._chance(m))
        while m.phase is Phase.PLAY:
            t = m.turn
            expected = _expect_play(len(m.hands[0]))
            self._show("main_play", lambda s: ("hand", t, tuple(m.hands[s]), m.base))
            yield from self._ask_both(
                [MainPlay(turn=t, hand=m.options(s), base=m.base) for s in range(SEATS)], Play, expected
            )
            res = m.last_turn
            assert res is not None
            won = list(m.won)
            self._show("turn_result", lambda s: ("turn", t, res.base, res.played[s], res.played[1 - s], res.winner))
            yield from tell([
                (s, TurnResult(turn=t, base=res.base, your_card=res.played[s], opponent_card=res.played[1 - s],
                               winner=res.winner, turns_won=won))
                for s in range(SEATS)
            ])
        self._stage = "match_end"
        yield from end_match(self.match_index, self.scores(), SEATS)
        return MatchOutcome(payoffs=list(m.won), hands=m.turn)


def seeded_chance(rng: random.Random) -> Chance:
    """Resolve the two shuffles of a match from one ``random.Random``."""

    def resolve(m: RpsDraftMatch) -> object:
        if m.phase is Phase.SHUFFLE:
            order = list(FULL_DECK)
            rng.shuffle(order)
            return order
        decks = [list(m.decks[0]), list(m.decks[1]), list(m.remaining)]
        for d in decks:
            rng.shuffle(d)
        return decks

    return resolve


__all__ = ["MODELS", "RpsDraftDealer", "seeded_chance"]


class RpsDraftPlugin(BuiltinGame[RpsDraftParams]):
    spec = GameSpec(
        id="rpsdraft",
        version=2,  # 2: deals from the keyed chance stream (arena._seeds)
        title="RPS card draft",
        min_seats=2,
        max_seats=2,
        description="Draft 10 of 30 RPS cards two at a time, then 10 turns of card + base; score = turns won.",
    )
    Params = RpsDraftParams
    payoff_label = score_label = "turns won"
    hand_label = "turns"
    rules = games.rpsdraft.__doc__ or ""
    #: every match starts with match_start and ends with match_end
    reusable_processes = True
    #: the longest reply line accepted: every valid reply is a small JSON object
    max_reply_bytes = 1024
    message_models = (*FRAMING_MODELS, *MODELS)
    #: the seed's tournament kept one bot object per entrant, and disqualified a
    #: bot that threw or returned a bad index: one fault, out
    default_lifetime = "tournament"
    default_max_faults = 1
    round_note = "both seatings of every pair of entrants: two rounds of the original challenge"
    playthrough_matches = (({}, 11),)
    # aggregate: a series adds up turns won, the default

    def invariants(self, params: RpsDraftParams) -> tuple[str, ...]:
        # every turn has exactly one winner: the turns won add up to ``turns``
        return ("constant_sum",)

    def open_dialogue(self, params: RpsDraftParams, rng: random.Random, names: list[str],
                      match_index: MatchIndex = 0) -> RpsDraftDealer:
        return RpsDraftDealer(params, seeded_chance(rng), names, match_index)

    def legal_replies(self, run: RpsDraftDealer, seat: int, payload: bytes) -> list[str]:
        # the cards offered and the hand are the engine's, as the message lists them
        msg = json.loads(payload)
        if msg["type"] == "match_start":
            return ['{"type": "ready"}']
        kind, cards = ("pick", msg["cards"]) if msg["type"] == "draft_pick" else ("play", msg["hand"])
        return [json.dumps({"type": kind, "index": i}) for i in range(len(cards))]

    def random_reply(self, run: RpsDraftDealer, seat: int, payload: bytes, rng: random.Random) -> str:
        msg = json.loads(payload)
        if msg["type"] == "match_start":
            return '{"type": "ready"}'
        if msg["type"] == "draft_pick":
            return json.dumps({"type": "pick", "index": rng.randrange(len(msg["cards"]))})
        if msg["type"] == "main_play":
            return json.dumps({"type": "play", "index": rng.randrange(len(msg["hand"]))})
        raise ValueError(f"rpsdraft asks nothing with {msg['type']!r}")

    def seat_view(self, params: RpsDraftParams, seat: int) -> "RpsDraftSeatView":
        return RpsDraftSeatView(seat, params.model_dump(mode="json"))


_SYMBOL = {"R": "rock", "P": "paper", "S": "scissors"}


def _card(card: str) -> str:
    """``R7`` -> ``R7 (rock 7)``: the code a person types, and what it is."""
    return f"{card} ({_SYMBOL.get(card[:1], '?')} {card[1:]})"


class RpsDraftSeatView(SeatView):
    """One seat's draft and turns for a person: the cards by their codes (``R7``),
    which are what the person types; a card's position is the view's business."""

    def __init__(self, seat: int, params: dict) -> None:
        super().__init__(seat, params)
        self._cards: list[str] = []  # the cards of the open decision, in the message's order
        self._kind = ""

    def feed(self, line: str) -> Turn | None:
        m = json.loads(line)
        kind = m.get("type")
        if kind == "draft_pick":
            self._kind, self._cards = "pick", list(m["cards"])
            return Turn([f"Draft round {m['round'] + 1}: offered {' and '.join(map(_card, self._cards))}; "
                         "the one you do not keep goes to your opponent"],
                        [Choice(c) for c in self._cards], question="Keep")
        if kind == "draft_receive":
            return Turn([f"  your opponent passed you {_card(m['card'])}"])
        if kind == "main_play":
            self._kind, self._cards = "play", list(m["hand"])
            return Turn([f"Turn {m['turn'] + 1}: base card {_card(m['base'])}; your hand "
                         f"{', '.join(map(_card, self._cards))}"],
                        [Choice(c) for c in self._cards], question="Play")
        if kind == "turn_result":
            won = m["turns_won"]
            who = "you win" if m["winner"] == self.seat else "your opponent wins"
            return Turn([f"  you played {m['your_card']}, your opponent {m['opponent_card']}: {who} the turn "
                         f"(turns won: you {won[self.seat]}, your opponent {won[1 - self.seat]})"])
        return super().feed(line)

    def reply(self, choice: Choice, amount: int | None) -> str:
        return json.dumps({"type": self._kind, "index": self._cards.index(choice.word)})



PLUGIN = RpsDraftPlugin()
