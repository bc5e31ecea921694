"""The vonneumann JSON-lines protocol, as a sans-I/O dealer dialogue.

    match_start -> ready                      (both seats)
    per game:   a_turn -> bet                 (A only)
                b_turn -> call                (B only, and only after a bet)
    match_end                                 (both seats, no reply)

Each request carries everything the seed's ``Bot`` struct held when ``a()``
or ``b()`` was called (own card, the opponent's previous card or -1, both
amounts of money) plus where the game sits in the match. There is no
end-of-game notification: like the seed's bots, a bot learns how a game went
from the next request (money, previous card). See docs/protocols/vonneumann.md.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from enum import IntEnum
from pathlib import Path
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, Field, StrictBool, StrictInt

import games.vonneumann
from games import GameSpec, IllegalAction
from games.vonneumann import Phase, VonNeumannMatch, VonNeumannParams, session_points

from ._builtin import BuiltinGame
from ._contract import CompiledDialogue, Exchange, MatchOutcome
from ._errors import ProtocolError
from .seatview import Choice, SeatView, Turn
from .jsonlines import (
    FRAMING_MODELS, MatchIndex, Message, Ready, Reply, abandoned, decode, encode_fields, end_match, match_number,
    reply_fields, series_position, start_match,
)

GAME = "vonneumann"
VERSION = 1
#: cards are k / 2**24: exact in a C float and in JSON's shortest decimal
CARD_BITS = 24

EXPECT_BET = '{"type": "bet", "amount": <whole dollars; 0 or less passes>}'
EXPECT_CALL = '{"type": "call", "call": true | false}'
EXPECT_READY = '{"type": "ready"}'

Deal = Callable[[], tuple[float, float]]


class _Turn(Message):
    type: str  # narrowed by each request; declared first so it leads the JSON object
    match: int = Field(description="index of this match among those this process plays, from 0")
    session: int = Field(description="session within the match, from 0")
    game: int = Field(description="game within the session, from 0")
    match_game: int = Field(description="game within the match, from 0 (roles alternate on it)")
    card: float = Field(description="your card, in [0, 1); a multiple of 2**-24")
    opponent_previous_card: float = Field(
        description="the opponent's card in the previous game of the match if it was shown "
        "(showdown), else -1"
    )
    money: int = Field(description="your money now, before this game's ante is settled")
    opponent_money: int = Field(description="the opponent's money now")


class ATurn(_Turn):
    """You are A: bet or pass."""

    type: Literal["a_turn"] = "a_turn"
    max_bet: int = Field(description="the most a bet can be now: min(max_bet, your money, "
                         "opponent's money); larger bets are cut to it")


class BTurn(_Turn):
    """You are B and A has bet: call or fold."""

    type: Literal["b_turn"] = "b_turn"
    bet: int = Field(description="A's bet after the cut; you can always afford it")


FiniteFloat = Annotated[float, Field(allow_inf_nan=False, strict=True)]


class BetReply(Reply):
    type: Literal["bet"]
    amount: StrictInt | FiniteFloat = Field(
        description="dollars to bet; 0 or less passes; more than the limit is cut to it. "
        "A number with a fraction of a dollar is an illegal action"
    )

    fast_shape = {"type": "bet", "amount": int}


class CallReply(Reply):
    type: Literal["call"]
    call: StrictBool = Field(description="true calls, false folds")

    fast_shape = {"type": "call", "call": bool}


MODELS: list[type[BaseModel]] = [*FRAMING_MODELS, ATurn, BTurn, BetReply, CallReply]


def _fields(seat: int, line: str, model: type[Reply], expected: str) -> dict:
    try:
        return reply_fields(seat, line, model, expected)
    except ValueError as exc:  # e.g. an integer with more digits than Python will convert
        raise ProtocolError(seat, "malformed_reply", line, expected, f"not JSON: {exc}") from None


class Step(IntEnum):
    """Which exchange of the dialogue comes next."""

    START = 0  # match_start -> ready (both seats)
    A_TURN = 1  # a_turn -> bet (A)
    B_TURN = 2  # b_turn -> call (B)
    END = 3  # match_end (both seats, no reply)
    DONE = 4


_GRID = float(1 << CARD_BITS)

#: The compiled twin of the dialogue (vonneumann_compiled.c). It includes the
#: engine's source (games/vonneumann/_engine.c: one copy of the rules) and
#: plays on the dealer's own VonNeumannMatch, so all it shares with the
#: dialogue through this layout is where the dialogue stands (``step``).
VONNEUMANN_COMPILED = CompiledDialogue(
    source=Path(__file__).with_name("vonneumann_compiled.c"),
    function="vonneumann_play",
    struct="VNState",
    layout=(("step", 1),),
    # match_start and match_end stay in Python
    steps=frozenset({Step.A_TURN, Step.B_TURN}),
    includes=(Path(games.vonneumann.__file__).with_name("_engine.c"),),
)


class VonNeumannDealer:
    """Runs one vonneumann match over JSON lines.

    ``deal`` returns (A's card, B's card) for each game; the arena passes one
    drawn from the match seed, tests may pass rigged ones.

    A state machine (``step``; ``next_exchange`` renders the exchange due,
    ``feed`` judges its replies), so that the compiled dialogue beside this
    file (vonneumann_compiled.c, declared by ``VONNEUMANN_COMPILED``) can play
    on from its step, on this dealer's own engine (``state``), and hand it
    back; ``resume`` picks the dialogue up wherever ``step`` stands. Games the
    compiled dialogue plays leave no entry in the engine's ``results`` log
    (the log is kept by the engine's Python methods); the rest of the match
    is the one object both dialogues play on.
    """

    def __init__(self, params: VonNeumannParams, deal: Deal, names: list[str] | None = None,
                 match_index: MatchIndex = 0) -> None:
        self.params = params
        self.names = list(names) if names else ["seat0", "seat1"]
        self.match_index = match_index
        # Alternate who is A first from one match of a series to the next.
        self.state = VonNeumannMatch(params, first_a=series_position(match_index) % 2)
        self._deal = deal
        self.step = Step.START

    def context(self) -> dict[str, int | None]:
        m = self.state
        if self.step is Step.START or m.phase is Phase.OVER:
            return {"hand": None, "session": None}
        return {"hand": m.match_game, "session": m.session, "game": m.game}

    def standings(self) -> tuple[int, list[int]]:
        return self.state.match_game, self.state.payoffs()

    def scores(self) -> list[float]:
        return self.state.scores()

    def known(self, seat: int) -> tuple:
        """What ``seat`` may know now: the match's public facts (players,
        parameters, its match number, where the match stands, both amounts of
        money, the money won in finished sessions, A's bet, the scores once
        match_end tells them), its own card, and the opponent's previous card
        only as the showdown showed it to this seat. Never the opponent's card
        of the game in play."""
        m = self.state
        own = None
        if m.cards is not None:
            own = m.cards[0] if seat == m.a_seat else m.cards[1]
        # the scores sum every session: only worked out for the message that carries them
        final = tuple(m.scores()) if self.step is Step.END else None
        return (seat, match_number(self.match_index, seat), tuple(self.names), self.params, m.first_a,
                int(self.step), m.phase.value, m.session, m.game, m.match_game, tuple(m.money), m.bet, own,
                m.previous_card[seat], tuple(m.settled), final)

    def forfeit(self, seat: int) -> list[float]:
        """The fault rule, the worst legal continuation: the faulting seat keeps
        the points of the sessions it finished, and every session not finished
        (the one in play included) counts as its whole stack lost, which is
        worse than any session it could have played (a session's points are
        at least -stack)."""
        m = self.state
        scores = self.scores()
        if m.game:  # the session in play: what it has won so far does not count
            scores[seat] -= session_points(m.money[seat] - m.params.stack, m.game)
        unfinished = m.params.sessions - m.session
        scores[seat] -= unfinished * m.params.stack
        return scores

    def abandon(self) -> list[tuple[int, bytes]]:
        """Every seat's ``match_end`` (not completed) when another seat faulted."""
        return abandoned(self.match_index, self.scores(), 2)

    def _turn(self, seat: int, kind: str, last: str, value: int) -> bytes:
        """An ``a_turn`` (``last`` is max_bet) or ``b_turn`` (bet) request:
        ``ATurn``/``BTurn``'s fields in their order, written without the model
        (tests/protocols/test_jsonlines_fast.py holds the bytes to the model's)."""
        m = self.state
        assert m.cards is not None
        return encode_fields({
            "type": kind,
            "match": match_number(self.match_index, seat),
            "session": m.session,
            "game": m.game,
            "match_game": m.match_game,
            "card": float(m.cards[0] if seat == m.a_seat else m.cards[1]),
            "opponent_previous_card": float(m.previous_card[seat]),
            "money": m.money[seat],
            "opponent_money": m.money[1 - seat],
            last: value,
        })

    # -- the dialogue -----------------------------------------------------------

    def run(self):  # -> Dialogue
        return (yield from self.resume())

    def resume(self):  # -> Dialogue
        while (exchange := self.next_exchange()) is not None:
            self.feed((yield exchange))
        m = self.state
        return MatchOutcome(
            payoffs=m.payoffs(),
            hands=m.match_game,
            extra={"sessions": len(m.session_games), "session_games": list(m.session_games)},
        )

    def next_exchange(self) -> Exchange | None:
        m, step = self.state, self.step
        if step is Step.A_TURN:
            a = m.a_seat
            return Exchange([(a, self._turn(a, "a_turn", "max_bet", m.clamp(self.params.max_bet)))], EXPECT_BET)
        if step is Step.B_TURN:
            b = m.b_seat
            return Exchange([(b, self._turn(b, "b_turn", "bet", m.bet))], EXPECT_CALL)
        if step is Step.START:
            return next(start_match(GAME, VERSION, self.match_index, self.names, self.params))
        if step is Step.END:
            return next(end_match(self.match_index, m.scores(), 2))
        return None

    def feed(self, replies: list[str]) -> None:
        m, step = self.state, self.step
        if step is Step.A_TURN:
            (line,) = replies
            a = m.a_seat
            reply = _fields(a, line, BetReply, EXPECT_BET)
            try:
                m.apply_bet(reply["amount"])
            except IllegalAction as exc:
                raise ProtocolError(a, "illegal_action", line, EXPECT_BET, str(exc)) from None
            if m.phase is Phase.B_TO_ACT:
                self.step = Step.B_TURN
            else:
                self._next_game()
        elif step is Step.B_TURN:
            (line,) = replies
            m.apply_call(_fields(m.b_seat, line, CallReply, EXPECT_CALL)["call"])
            self._next_game()
        elif step is Step.START:
            for seat, line in enumerate(replies):
                decode(seat, line, Ready, EXPECT_READY)
            self._next_game()
        elif step is Step.END:
            self.step = Step.DONE
        else:
            raise RuntimeError("the vonneumann dialogue is over")

    def _next_game(self) -> None:
        m = self.state
        if m.phase is Phase.OVER:
            self.step = Step.END
            return
        m.apply_deal(*self._deal())
        self.step = Step.A_TURN

    # -- the state as plain integers (for the compiled dialogue) ----------------

    #: the compiled twin of this dialogue (``protocols.CompiledDialogue``)
    compiled = VONNEUMANN_COMPILED

    def native_chance(self) -> tuple[tuple[VonNeumannMatch, Callable[[], tuple[float, float, bytes, bytes]],
                                           Callable[[float], bytes]], None] | None:
        """What the compiled dialogue plays with, when the deal is the seeded
        kind (a rigged test dialogue keeps the Python path): this dealer's
        engine, worked on in place; the deal, each card with its text in a
        request; and the text of any other card (orjson's, as ``_turn``
        writes it: the float format is orjson's alone)."""
        deal = self._deal
        return ((self.state, deal.with_texts, orjson.dumps), None) if isinstance(deal, SeededDeal) else None

    def native_params(self) -> tuple[int, ...]:
        """Each seat's match number (the rules' parameters are the engine's own)."""
        return match_number(self.match_index, 0), match_number(self.match_index, 1)

    def native_state(self) -> dict[str, int]:
        """Where the dialogue stands, by field of ``VONNEUMANN_COMPILED.layout``
        (the match is the engine's, which the compiled dialogue shares)."""
        return {"step": int(self.step)}

    def load_native_state(self, v: dict[str, Any]) -> None:
        """The inverse of ``native_state``: take over where the compiled dialogue stopped."""
        self.step = Step(v["step"])


class SeededDeal:
    """Both cards of a game from one ``random.Random``: A's first, then B's,
    each k / 2**24 for a uniform 24-bit k. ``with_texts`` is the same draw
    with each card's text in a request (what the compiled dialogue takes: it
    writes the text it is given, and formats no float itself)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self) -> tuple[float, float]:
        bits = self.rng.getrandbits
        return bits(CARD_BITS) / _GRID, bits(CARD_BITS) / _GRID

    def with_texts(self) -> tuple[float, float, bytes, bytes]:
        # One Python call a game for the compiled dialogue: the draw and both texts.
        bits = self.rng.getrandbits
        a, b = bits(CARD_BITS) / _GRID, bits(CARD_BITS) / _GRID
        return a, b, orjson.dumps(a), orjson.dumps(b)


def seeded_deal(rng: random.Random) -> SeededDeal:
    return SeededDeal(rng)


class VonNeumannPlugin(BuiltinGame[VonNeumannParams]):
    spec = GameSpec(
        id="vonneumann",
        version=2,  # 2: deals from the keyed chance stream (arena._seeds)
        title="von Neumann poker",
        min_seats=2,
        max_seats=2,
        description="Cards uniform in [0,1), ante 10, A bets $1-50 or passes, B calls or folds; "
        "sessions scored m/sqrt(g).",
    )
    Params = VonNeumannParams
    payoff_label = "dollars"
    hand_label = "games"
    score_label = "m/√g points"
    rules = games.vonneumann.__doc__ or ""
    reusable_processes = True
    #: the longest reply line accepted: every valid reply is a small JSON object
    max_reply_bytes = 1024
    message_models = tuple(MODELS)
    #: the seed's tournament kept one bot object per entrant for all its matches
    default_lifetime = "tournament"
    round_note = "both seatings of every pair of entrants (a match is -p sessions=N sessions)"

    def big_blind(self, params: VonNeumannParams | None = None) -> float | None:
        return float(params.ante if params is not None else 10)  # each game's one forced bet
    playthrough_matches = (({"sessions": 2, "games_per_session": 6}, 7),)

    def native_parts(self) -> tuple[Any, ...]:
        from games.vonneumann._native import ENGINE  # the rules' engine, built by games itself

        return (VONNEUMANN_COMPILED, ENGINE.path)

    def invariants(self, params: VonNeumannParams) -> tuple[str, ...]:
        # Every game moves money from one seat to the other, and each session
        # starts both at the same stack: what one wins the other loses.
        return ("zero_sum",)

    def open_dialogue(self, params: VonNeumannParams, rng: random.Random, names: list[str],
                      match_index: MatchIndex = 0) -> VonNeumannDealer:
        return VonNeumannDealer(params, seeded_deal(rng), names, match_index)

    def random_reply(self, run: VonNeumannDealer, seat: int, payload: bytes, rng: random.Random) -> str:
        kind = json.loads(payload)["type"]
        if kind == "match_start":
            return '{"type":"ready"}'
        if kind == "a_turn":
            # Passes, ordinary bets, and bets above every limit (which are cut to the limit).
            return json.dumps({"type": "bet", "amount": rng.choice([0, -3, rng.randint(1, 60), 500])})
        if kind == "b_turn":
            return json.dumps({"type": "call", "call": rng.random() < 0.6})
        raise ValueError(f"vonneumann asks nothing with {kind!r}")


    def seat_view(self, params: VonNeumannParams, seat: int) -> "VonNeumannSeatView":
        return VonNeumannSeatView(seat, params.model_dump(mode="json"))


class VonNeumannSeatView(SeatView):
    """One seat's von Neumann poker for a person: the card, the money, bet or pass, call or fold."""

    def feed(self, line: str) -> Turn | None:
        m = json.loads(line)
        kind = m.get("type")
        if kind in ("a_turn", "b_turn"):
            shown = [f"Game {m['match_game'] + 1}: your card {m['card']:.4f}; your money {m['money']}, "
                     f"the opponent's {m['opponent_money']}"
                     + (f"; the opponent showed {m['opponent_previous_card']:.4f} last game"
                        if m["opponent_previous_card"] >= 0 else "")]
            if kind == "a_turn":
                # A larger bet is legal and cut to the limit, 0 or less passes: the same
                # choices by other numbers, so the view names these and says it is partial.
                return Turn(shown, [Choice("pass"), Choice("bet", 1, max(1, m["max_bet"]))], question="You are A",
                            partial=True)
            return Turn(shown + [f"  A bets {m['bet']}"], [Choice("fold"), Choice("call")], question="You are B")
        if kind == "match_end":
            return Turn(["", f"Match over: you finished {m['scores'][self.seat]:+g}."])
        return super().feed(line)

    def reply(self, choice: Choice, amount: int | None) -> str:
        if choice.word in ("pass", "bet"):
            return json.dumps({"type": "bet", "amount": amount or 0})
        return json.dumps({"type": "call", "call": choice.word == "call"})


PLUGIN = VonNeumannPlugin()
