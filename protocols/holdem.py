"""The Texas Hold'em JSON-lines protocol, as a sans-I/O dealer dialogue.

Per match::

    match_start -> ready
    per hand (cash), or per hand of every tournament (freezeout):
        hand_start                  (notice to every seat dealt in)
        act -> action               (the seat to act; then an ``action`` notice to all)
        street                      (notice: the flop, the turn, the river)
        hand_end                    (notice: shown cards, pots, stacks)
    tournament_end                  (freezeout: notice to every seat)
    match_end

The game state in ``act`` is the seed's ``HoldemGameState`` (chip counts,
amount to call, players in the hand, community cards, big blind, pot, last
action) plus the seat's cards, its position and the legal actions. Messages
are in docs/protocols/holdem.md.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import deque
from collections.abc import Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

import games.holdem
from games import GameSpec, IllegalAction
from games.holdem import (
    RAISE,
    STREETS,
    Freezeout,
    HoldemHand,
    HoldemParams,
    Pot,
    card_names,
    describe,
    load_evaluator,
)

from ._builtin import SAMPLE_BOTS, BuiltinGame
from ._contract import CompiledDialogue, DemoBot, Exchange, MatchOutcome
from . import holdem_wire as wire
from ._errors import ProtocolError
from .seatview import Choice, SeatView, Turn, card_text
from .jsonlines import (
    FRAMING_MODELS,
    MatchIndex,
    Message,
    Ready,
    Reply,
    abandoned,
    decode,
    encode,
    encode_fields,
    end_match,
    fast_reply,
    match_number,
    start_match,
)

GAME = "holdem"
VERSION = 1
DECK = tuple(range(52))

Cards = list[str]
ActionName = Literal["fold", "call", "raise", "allin"]


class HandStart(Message):
    type: Literal["hand_start"] = "hand_start"
    hand: int = Field(description="the hand's number in the match, from 0")
    tournament: int | None = Field(description="the tournament's number in freezeout (null in cash)")
    seat: int = Field(description="your seat")
    cards: Cards = Field(description="your two hole cards")
    button: int
    small_blind_seat: int
    big_blind_seat: int
    small_blind: int
    big_blind: int
    ante: int
    stacks: list[int] = Field(description="chips behind per seat after the antes and blinds (0: not dealt in)")
    bets: list[int] = Field(description="per seat: the blind it posted")
    in_hand: list[int] = Field(description="the seats dealt in")


class LastAction(Message):
    seat: int
    action: Literal["fold", "call", "raise", "allin", "big_blind"] = Field(
        description="the reply's word; big_blind: the post of the big blind, before anyone acted")
    amount: int = Field(description="the chips this action put in")


class Act(Message):
    type: Literal["act"] = "act"
    hand: int
    street: Literal["preflop", "flop", "turn", "river"]
    seat: int = Field(description="your seat")
    cards: Cards = Field(description="your two hole cards")
    board: Cards = Field(description="the community cards")
    stacks: list[int] = Field(description="chips behind per seat (not counting the bets)")
    bets: list[int] = Field(description="per seat: what it has put in on this street")
    pot: int = Field(description="every chip put in this hand, the current bets included")
    to_call: int = Field(description="what a call costs you (0: a call is a check)")
    button: int
    small_blind_seat: int
    big_blind_seat: int
    small_blind: int
    big_blind: int
    in_hand: list[int] = Field(description="the seats that have not folded")
    last_action: LastAction | None = Field(description="the last action of the hand (blinds included)")
    legal: list[ActionName] = Field(description="the actions you may take")
    min_raise_to: int | None = Field(description="the smallest 'to' of a raise (null: no raise)")
    max_raise_to: int | None = Field(description="the largest 'to' of a raise: your bet plus your stack "
                                                  "(limit: the one 'to' a raise may have, as min_raise_to)")
    # limit games only (a game definition's): absent from a no-limit act
    raise_size: int | None = Field(default=None, description="limit only: the size of a bet or raise on this street")
    raises: int | None = Field(default=None, description="limit only: the bets and raises made on this street")
    max_raises: int | None = Field(default=None,
                                   description="limit only: the most bets and raises this street allows")

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)  # a no-limit act has no limit fields (not nulls)
        for name in LIMIT_FIELDS:
            if isinstance(data, dict) and data.get(name) is None:
                data.pop(name, None)
        return data


#: the fields of ``act`` that only a limit game's requests have
LIMIT_FIELDS = ("raise_size", "raises", "max_raises")


class ActionNotice(Message):
    type: Literal["action"] = "action"
    hand: int
    seat: int = Field(description="who acted")
    action: ActionName
    amount: int = Field(description="the chips this action put in")
    bet: int = Field(description="the seat's bet on this street after it")
    stack: int = Field(description="the seat's chips left")
    pot: int
    all_in: bool


class Street(Message):
    type: Literal["street"] = "street"
    hand: int
    street: Literal["flop", "turn", "river"]
    board: Cards
    pot: int


class Shown(Message):
    seat: int
    cards: Cards
    hand: str = Field(description="the best five cards in words")


class PotResult(Message):
    amount: int
    seats: list[int] = Field(description="the seats that could win it")
    winners: list[int]
    hand: str | None = Field(description="the winning hand in words (null: won without a showdown)")


class HandEnd(Message):
    type: Literal["hand_end"] = "hand_end"
    hand: int
    board: Cards
    shown: list[Shown]
    pots: list[PotResult] = Field(description="the main pot first, then the side pots")
    stacks: list[int] = Field(description="chips per seat after the pots were paid")
    profits: list[int] = Field(description="per seat: chips won (negative: lost) in this hand")


class TournamentEnd(Message):
    type: Literal["tournament_end"] = "tournament_end"
    tournament: int
    places: list[float] = Field(description="per seat: its finishing place, 1 for the winner (ties averaged)")
    points: list[float] = Field(description="per seat: seats - place")


class ActionReply(Reply):
    type: Literal["action"]
    action: ActionName
    to: int | None = Field(default=None, strict=True, description="with raise only: your bet after raising")

    # Every valid reply but a raise written with "to": null: taken without pydantic.
    fast_shapes = (
        {"type": "action", "action": "call"},
        {"type": "action", "action": "fold"},
        {"type": "action", "action": "raise", "to": int},
        {"type": "action", "action": "allin"},
    )

    @model_validator(mode="after")
    def _to_with_raise(self) -> "ActionReply":
        if (self.action == "raise") != (self.to is not None):
            raise ValueError('"to" goes with a raise, and only with a raise')
        return self


MODELS: list[type[BaseModel]] = [HandStart, Act, ActionNotice, Street, HandEnd, TournamentEnd, ActionReply]


def _expect(legal: games.holdem.Legal, limit: bool = False):
    def words() -> str:
        text = '{"type": "action", "action": A} with A one of ' + ", ".join(legal.actions)
        if legal.min_to is not None and limit:
            text += (f', and "to" {legal.min_to} with raise (the limit raise: "to" is your bet on the street after '
                     'raising, not the amount added)')
        elif legal.min_to is not None:
            text += (f', and "to" from {legal.min_to} to {legal.max_to} with raise '
                     '("to" is your bet on the street after raising, not the amount added)')
        return text
    return words


class Step(IntEnum):
    """Which exchange of the dialogue comes next."""

    START = 0  # match_start -> ready
    HAND_START = 1  # hand_start to every seat dealt in
    BOARD = 2  # the streets of a hand nobody could act in
    ASK = 3  # act -> action (the seat to act)
    FAULT = 4  # the reply just refused, reported (the others play on)
    NOTICE = 5  # action (and the streets it opened) to every seat of the hand
    HAND_END = 6
    TOURNAMENT_END = 7
    END = 8  # match_end
    DONE = 9


#: The compiled twin of cash hands (holdem_compiled.c: the betting, and
#: between hands hand_end, the deal and hand_start), which works on the
#: dealer's own HoldemHand (it includes the engine's source: one copy of the
#: rules) and shares with the dialogue only where it stands: the step, the
#: seat asked, the board cards announced, the hand's number, and a seat
#: whose action it applied but could not tell (``acted``, -1: none). The
#: hands it finished, their chips and the decks it dealt it tells the dealer
#: (``native_sync``) before the dialogue goes on.
HOLDEM_COMPILED = CompiledDialogue(
    source=Path(__file__).with_name("holdem_compiled.c"),
    function="holdem_play",
    struct="HLState",
    layout=(("step", 1), ("asked", 1), ("shown", 1), ("hand", 1), ("acted", 1)),
    steps=frozenset({Step.ASK}),
    includes=(Path(games.holdem.__file__).with_name("_engine.c"),),
    takes_held=True,
    takes_codecs=True,
)


class HoldemDealer:
    """Runs one match: ``hands`` cash hands or ``tournaments`` freezeouts."""

    def __init__(self, params: HoldemParams, rng: random.Random, names: list[str], match_index: MatchIndex = 0) -> None:
        load_evaluator()  # before the match's first message, not at its first showdown
        self.params = params
        self.rng = rng
        self.names = list(names)
        self.seats = len(names)
        self.match_index = match_index
        #: cash: chips won; freezeout: points from finished tournaments
        self.totals: list[float] = [0] * self.seats
        self.hands = 0
        self.tournaments = 0
        self.hand: HoldemHand | None = None
        self.tour: Freezeout | None = None
        #: seats that faulted: folded out of the hand in play, dealt no more,
        #: never written to again; their scores by the fault rule, fixed then
        self.out: dict[int, float] = {}
        self._unannounced: list[int] = []  # folded out between requests: not yet told to the others
        self.step = Step.START
        self._shown = 0  # board cards announced in the hand in play
        self._sends: list[tuple[int, bytes]] = []  # the notice due (Step.NOTICE, Step.TOURNAMENT_END)
        # What each seat may know (``known``): the public facts told since the last deal, the
        # earlier ones folded into a hash (a long match's history in constant memory, at the cost
        # of one tuple hash a deal: check-game compares them within one process), its hole cards.
        self._facts: list[tuple] = []
        self._past = 0
        self._own: list[tuple[int, ...] | None] = [None] * self.seats
        self._own_past = [0] * self.seats
        self._header = (tuple(self.names), tuple(params.model_dump().items()))
        #: limit betting's raise sizes and caps per street (None: no-limit), for every hand dealt
        self._limit = params.limit()
        self._compiled = False  # the compiled betting has played: the facts miss what it did
        self._fault: ProtocolError | None = None  # the refused reply due (Step.FAULT)
        self._asked = -1  # the seat asked (Step.ASK, Step.FAULT)
        #: decks drawn ahead for the compiled dialogue (native_deals), each with
        #: the chance's state before it, dealt in order by _deal
        self._ahead: deque[tuple[Any, bytes]] = deque()

    # -- reports --------------------------------------------------------------

    def context(self) -> dict[str, int | None]:
        where: dict[str, int | None] = {"hand": self.hands if self.hand is not None else None}
        if self.params.mode == "freezeout":
            where["tournament"] = self.tournaments
        return where

    def standings(self) -> tuple[int, list[float]]:
        """Hands played and the totals (freezeout: points of finished tournaments)."""
        return self.hands, list(self.totals)

    def scores(self) -> list[float]:
        return [float(t) for t in self.totals]

    def forfeit(self, seat: int) -> list[float]:
        """The fault rule, the worst legal continuation: cash keeps the chips
        won in finished hands and counts the whole stack lost in every hand
        not finished (the one in play included); freezeout keeps the points
        of finished tournaments, last place (no points) in the others. Fixed
        when the seat leaves: the others play on without it."""
        scores = self.scores()
        if seat in self.out:
            scores[seat] = self.out[seat]
        elif self.params.mode == "cash":  # (limit: what the caps let a seat lose in a hand, if less than its stack)
            unfinished = self.params.hands - self.hands
            scores[seat] = float(self.totals[seat] - unfinished * self.params.most_lost())
        return scores

    def seat_gone(self, seat: int) -> bool:
        """Play on without ``seat`` (it faulted): folded out of the hand in
        play, its chips there lost, dealt no more hands (freezeout: out of
        the tournament in play, last), never written to again."""
        if seat in self.out:
            return True
        self.out[seat] = self.forfeit(seat)[seat]
        self._facts.append(("gone", seat))
        if self.hand is not None and not self.hand.folded[seat]:
            self.hand.fold_out(seat)
            self._unannounced.append(seat)
        if self.tour is not None:
            self.tour.drop(seat)
        return True

    def abandon(self) -> list[tuple[int, bytes]]:
        return [(s, m) for s, m in abandoned(self.match_index, self.scores(), self.seats) if s not in self.out]

    def known(self, seat: int) -> tuple:
        """What ``seat`` may know now, its information state (``arena check-game``
        holds every message to it): its seat and match number, the players and
        the parameters, its own hole cards, and the public facts in the order
        they were told, this exchange's included (each deal's stacks, button
        and blinds, every action, fold-out and request, the board as each
        street is shown, the cards shown at a showdown, each tournament's
        end). Facts before the last deal, and its own earlier hole cards, are
        hashes. Never another seat's hole cards but those shown."""
        if self._compiled:  # its hands and actions never passed through the facts
            raise RuntimeError("known() follows the Python dialogue; the compiled betting played part of this match")
        return (seat, match_number(self.match_index, seat), self._header, self._past, self._own_past[seat],
                self._own[seat], tuple(self._facts))

    # -- the dialogue ---------------------------------------------------------
    #
    # A state machine: ``step`` says which exchange comes next,
    # ``next_exchange`` renders it from the dealer's and the hand's state and
    # ``feed`` takes its replies and moves on; ``run`` is the generator the
    # contract asks for, ``resume`` the same loop picked up wherever ``step``
    # stands (what a compiled dialogue needs to hand a match back).
    # A seat that faulted is dealt no more (seat_gone); with fewer than two
    # seats left the match ends there.

    def run(self):  # -> Dialogue
        return (yield from self.resume())

    def resume(self):  # -> Dialogue
        while (exchange := self.next_exchange()) is not None:
            self.feed((yield exchange))
        p = self.params
        return MatchOutcome(payoffs=self.scores(), hands=self.hands,
                            extra={"tournaments": self.tournaments} if p.mode == "freezeout" else {})

    def next_exchange(self) -> Exchange | None:
        step, hand, n = self.step, self.hand, self.hands
        if step is Step.ASK:
            assert hand is not None
            return self._ask(hand, self._asked, n)
        if step is Step.NOTICE or step is Step.TOURNAMENT_END:
            return Exchange([(x, m) for x, m in self._sends if x not in self.out], reply=False)
        if step is Step.HAND_START:
            assert hand is not None
            return Exchange([(s, self._hand_start(hand, s, n)) for s in sorted(hand.order)], reply=False)
        if step is Step.BOARD:
            assert hand is not None
            return Exchange([(x, m) for x, m in self._streets(hand, n, 0) if x not in self.out], reply=False)
        if step is Step.FAULT:
            return Exchange([], reply=False, fault=self._fault)
        if step is Step.HAND_END:
            assert hand is not None
            return Exchange([(x, m) for x, m in self._hand_end(hand, sorted(hand.order), n) if x not in self.out],
                            reply=False)
        if step is Step.START:
            return next(start_match(GAME, VERSION, self.match_index, self.names, self.params))
        if step is Step.END:
            return next(end_match(self.match_index, self.scores(), self.seats, skip=self.out))
        return None

    def feed(self, replies: list[str]) -> None:
        step, hand = self.step, self.hand
        if step is Step.ASK:
            assert hand is not None
            seat = self._asked
            (line,) = replies
            if line is not None:  # None: it faulted and is folded out (seat_gone)
                error = self._take(hand, seat, line)
                if error is not None:  # the others play on without it: folded out now, the fault reported
                    self.seat_gone(seat)
                    self._fault, self.step = error, Step.FAULT
                    return
            self._acted(seat)
        elif step is Step.FAULT:
            self._fault = None
            self._acted(self._asked)
        elif step is Step.NOTICE:
            self._play_on()
        elif step is Step.HAND_START:
            assert hand is not None
            if hand.board:  # nobody could act: the streets were dealt at once, each still announced
                self._told_streets(hand, 0)
                self.step = Step.BOARD
            else:
                self._play_on()
        elif step is Step.BOARD:
            assert hand is not None
            self._shown = len(hand.board)
            self._play_on()
        elif step is Step.HAND_END:
            self._hand_over()
        elif step is Step.TOURNAMENT_END:
            self._next_hand()
        elif step is Step.START:
            for seat, line in enumerate(replies):
                decode(seat, line, Ready, '{"type": "ready"}')
            self._next_hand()
        elif step is Step.END:
            self.step = Step.DONE
        else:
            raise RuntimeError("the hold'em dialogue is over")

    def _take(self, hand: HoldemHand, seat: int, line: str) -> ProtocolError | None:
        """Apply ``seat``'s reply to the hand; the error to report, or None."""
        legal = hand.legal()
        expect = _expect(legal, self._limit is not None)
        try:
            fields = fast_reply(line, ActionReply)
            if fields is not None:  # the canonical forms; anything else is judged by pydantic
                hand.act(fields["action"], fields.get("to"))
                return None
            reply = decode(seat, line, ActionReply, expect())
            hand.act(reply.action, reply.to)
            return None
        except IllegalAction as exc:
            return ProtocolError(seat, "illegal_action", line, expect(), str(exc))
        except ProtocolError as exc:
            return exc

    def _acted(self, seat: int) -> None:
        """``seat``'s turn is over (it acted, or was folded out): every seat is told."""
        hand = self.hand
        assert hand is not None
        if seat in self._unannounced:  # folded out while it was asked: told now
            self._unannounced.remove(seat)
        self._notify(hand, hand.last_action, hand.after_action)

    def _notify(self, hand: HoldemHand, last: tuple[int, str, int], after: tuple[int, int]) -> None:
        """An action told to every seat of the hand, and the streets it opened."""
        self._sends = self._notice(hand, self.hands, last, after, self._shown)
        self._facts.append(("action", *last, *after))
        self._told_streets(hand, self._shown)
        self._shown = len(hand.board)
        self.step = Step.NOTICE

    def _told_streets(self, hand: HoldemHand, shown: int) -> None:
        """The facts of the streets dealt since ``shown`` board cards (``_streets``)."""
        self._facts += [("street", tuple(hand.board[:size])) for size in (3, 4, 5) if shown < size <= len(hand.board)]

    def _play_on(self) -> None:
        """The hand goes on: seats folded out between requests (a fault found
        while writing) are told first, then the next seat is asked, or the hand ends."""
        hand = self.hand
        assert hand is not None
        if self._unannounced:
            seat = self._unannounced.pop(0)
            self._notify(hand, (seat, "fold", 0), (hand.bet[seat], hand.stack[seat]))
        elif hand.over:
            self._facts.append(("shown", tuple((s, tuple(hand.hole[s])) for s in sorted(hand.values))))
            self.step = Step.HAND_END
        else:
            self._asked = hand.to_act  # type: ignore[assignment]
            self._facts.append(("ask", self._asked))
            self.step = Step.ASK

    def _hand_over(self) -> None:
        hand = self.hand
        assert hand is not None
        self.hand = None
        tour = self.tour
        if tour is None:  # cash
            for s, profit in enumerate(hand.profits()):
                self.totals[s] += profit
            self.hands += 1
            self._next_hand()
            return
        tour.record(hand)
        self.hands += 1
        if not tour.over:
            self._next_hand()
            return
        self._end_tournament(tour)

    def _end_tournament(self, tour: Freezeout) -> None:
        self.tour = None
        points = tour.points()
        for s in range(self.seats):
            self.totals[s] += points[s]
        t = self.tournaments
        self.tournaments += 1
        places = [float(x) for x in tour.places if x is not None]
        assert len(places) == self.seats, "a freezeout is over once every seat has its place"
        end = encode(TournamentEnd(tournament=t, places=places, points=points))
        self._sends = [(s, end) for s in range(self.seats)]
        self._facts.append(("tournament_end", t, tuple(places)))
        self.step = Step.TOURNAMENT_END

    def _next_hand(self) -> None:
        """Deal the next hand, or end the tournament or the match."""
        p, n = self.params, self.seats
        if p.mode == "cash":
            h = self.hands
            if h >= p.hands or n - len(self.out) < 2:
                self._end()
                return
            button = next(s for s in ((h + i) % n for i in range(n)) if s not in self.out)
            self._deal([0 if s in self.out else p.stack for s in range(n)], button, p.blinds(h))
            return
        tour = self.tour
        if tour is None:
            if self.tournaments >= p.tournaments or n - len(self.out) < 2:
                self._end()
                return
            tour = self.tour = Freezeout(n, p, self.tournaments)
            for s in self.out:
                tour.drop(s)
            if tour.over:
                self._end_tournament(tour)
                return
        self._deal(tour.stacks, tour.next_button(), tour.blinds())

    def _deal(self, stacks: list[int], button: int, blinds: tuple[int, int, int]) -> None:
        size = 2 * sum(1 for s in stacks if s) + 5
        ahead = self._ahead
        if ahead and len(ahead[0][1]) == size:  # drawn ahead, in this very order
            deck: Any = list(ahead.popleft()[1])
        else:
            if ahead:  # fewer seats than the decks drawn ahead: the chance goes back to the first
                self.rng.setstate(ahead[0][0])
                ahead.clear()
            deck = self.rng.sample(DECK, size)
        self.hand = hand = HoldemHand(stacks, button, *blinds, deck, limit=self._limit)
        self._shown = 0
        self._dealt(hand)
        self.step = Step.HAND_START

    def _dealt(self, hand: HoldemHand) -> None:
        """The facts of a new deal; those before it are folded into the hashes."""
        self._past = hash((self._past, *self._facts))
        self._own_past = [hash((past, own)) for past, own in zip(self._own_past, self._own)]
        dealt = set(hand.order)
        self._own = [tuple(hand.hole[s]) if s in dealt else None for s in range(self.seats)]
        self._facts = [("deal", self.hands, self.tournaments if self.tour is not None else None, tuple(hand.start),
                        hand.button, hand.small_blind_seat, hand.big_blind_seat, hand.small_blind, hand.big_blind,
                        hand.ante, tuple(sorted(dealt)))]

    def _end(self) -> None:
        self._facts.append(("end",))
        self.step = Step.END

    # -- where the dialogue stands, for the compiled betting -------------------

    #: the compiled twin of the betting (``protocols.CompiledDialogue``)
    compiled = HOLDEM_COMPILED

    def native_chance(self) -> tuple[tuple[HoldemHand, HoldemDealer], None] | None:
        """The hand the compiled dialogue plays on, while it may: cash, every
        seat still playing and every fold told (else the Python path)."""
        if self.params.mode != "cash" or self.out or self._unannounced or self.hand is None:
            return None
        return (self.hand, self), None  # the dealer: its decks, native_sync, and its own steps where C stops

    def native_params(self) -> tuple[int, ...]:
        p = self.params
        return (self.seats, p.hands, p.stack, *p.blinds(0))

    def native_deals(self, start: int, count: int) -> bytes:
        """The decks of the ``count`` cash hands after the first ``start``
        drawn ahead, every seat dealt in: a deck's bytes are its cards. They
        are drawn from the match's chance in the order ``_deal`` would draw
        them, each noting the chance's state before it, and stay in the queue
        until dealt (``native_sync``, or ``_deal``), so the same seed deals
        the same hands either way; a hand needing another deck (a seat has
        left) puts the chance back to the first deck not dealt."""
        size = 2 * self.seats + 5
        ahead, rng = self._ahead, self.rng
        while len(ahead) < start + count:
            state = rng.getstate()
            ahead.append((state, bytes(rng.sample(DECK, size))))
        return b"".join(deck for _, deck in itertools.islice(ahead, start, start + count))

    def native_sync(self, hands: int, won: tuple[int, ...], dealt: int) -> None:
        """What the compiled dialogue played since it last said: ``hands``
        cash hands finished, the chips each seat ``won`` in them, and ``dealt``
        decks of the queue dealt (the hand in play is ``self.hand``, dealt
        in place)."""
        self.hands += hands
        for s, chips in enumerate(won):
            self.totals[s] += chips
        for _ in range(dealt):
            self._ahead.popleft()

    def native_state(self) -> dict[str, int]:
        return {"step": int(self.step), "asked": self._asked, "shown": self._shown, "hand": self.hands, "acted": -1}

    def load_native_state(self, v: dict[str, int]) -> None:
        self._compiled = True
        self.step, self._asked, self._shown = Step(v["step"]), v["asked"], v["shown"]
        if v["acted"] >= 0:  # its action was applied, and every seat is to be told (here)
            self._acted(v["acted"])

    def _hand_start(self, hand: HoldemHand, s: int, n: int) -> bytes:
        # The messages are written from their fields in their models' order,
        # without building the models (held to the models' own bytes by
        # tests/protocols/test_jsonlines_fast.py): a hand is some 25 messages.
        return encode_fields({
            "type": "hand_start", "hand": n, "tournament": self.tournaments if self.tour is not None else None,
            "seat": s, "cards": card_names(hand.hole[s]),  # type: ignore[arg-type]
            "button": hand.button, "small_blind_seat": hand.small_blind_seat,
            "big_blind_seat": hand.big_blind_seat, "small_blind": hand.small_blind, "big_blind": hand.big_blind,
            "ante": hand.ante, "stacks": hand.posted[0], "bets": hand.posted[1], "in_hand": sorted(hand.order)})

    def _notice(self, hand: HoldemHand, n: int, last: tuple[int, str, int], after: tuple[int, int],
                shown: int) -> list[tuple[int, bytes]]:
        """An action for every seat of the hand, and the streets dealt since ``shown`` board cards."""
        seats = sorted(hand.order)
        s, action, amount = last
        bet, stack = after
        notice = encode_fields({"type": "action", "hand": n, "seat": s, "action": action, "amount": amount,
                                "bet": bet, "stack": stack, "pot": hand.pot,
                                "all_in": stack == 0 and action != "fold"})
        return [(x, notice) for x in seats] + self._streets(hand, n, shown)

    def _streets(self, hand: HoldemHand, n: int, shown: int) -> list[tuple[int, bytes]]:
        """A ``street`` notice to every seat of the hand for each street dealt since ``shown`` board cards."""
        seats = sorted(hand.order)
        sends: list[tuple[int, bytes]] = []
        for size in (3, 4, 5):
            if shown < size <= len(hand.board):
                street = encode_fields({"type": "street", "hand": n, "street": STREETS[size - 2],
                                        "board": card_names(hand.board[:size]), "pot": hand.pot})
                sends += [(x, street) for x in seats]
        return sends

    def _ask(self, hand: HoldemHand, seat: int, n: int) -> Exchange:
        legal = hand.legal()
        last = hand.last_action
        fields = {
            "type": "act", "hand": n, "street": STREETS[hand.street], "seat": seat,
            "cards": card_names(hand.hole[seat]),  # type: ignore[arg-type]
            "board": card_names(hand.board), "stacks": hand.stack, "bets": hand.bet, "pot": hand.pot,
            "to_call": hand.max_bet - hand.bet[seat], "button": hand.button,
            "small_blind_seat": hand.small_blind_seat, "big_blind_seat": hand.big_blind_seat,
            "small_blind": hand.small_blind, "big_blind": hand.big_blind, "in_hand": hand.in_hand(),
            "last_action": None if last is None else {"seat": last[0], "action": last[1], "amount": last[2]},
            "legal": legal.actions, "min_raise_to": legal.min_to, "max_raise_to": legal.max_to}
        limit = self._limit
        if limit is not None:  # the street's raise size, the bets and raises made, the cap
            street = hand.street
            fields.update(raise_size=limit[0][street], raises=hand.raises, max_raises=limit[1][street])
        return Exchange([(seat, encode_fields(fields))], expect=_expect(legal, limit is not None))

    def _hand_end(self, hand: HoldemHand, seats: list[int], n: int) -> list[tuple[int, bytes]]:
        shown = [{"seat": s, "cards": card_names(hand.hole[s]), "hand": describe(v)}  # type: ignore[arg-type]
                 for s, v in sorted(hand.values.items())]
        end = encode_fields({"type": "hand_end", "hand": n, "board": card_names(hand.board), "shown": shown,
                             "pots": [_pot(p) for p in hand.pots], "stacks": hand.stack, "profits": hand.profits()})
        return [(s, end) for s in seats]


def _pot(pot: Pot) -> dict[str, Any]:
    """A ``PotResult``'s fields."""
    return {"amount": pot.amount, "seats": sorted(pot.seats), "winners": sorted(pot.winners),
            "hand": None if pot.value is None else describe(pot.value)}


class HoldemSeatView(SeatView):
    """One seat's hold'em for a person: its cards, the board, each action, the pots.
    The lines are read by ``holdem_wire.read``; a line that is no JSON object is a
    ``holdem_wire.WireError``."""

    def __init__(self, seat: int, params: dict) -> None:
        super().__init__(seat, params)
        self.names: list[str] = []
        self.act: wire.YourTurn | None = None

    def _who(self, seat: int) -> str:
        name = self.names[seat] if seat < len(self.names) else f"seat {seat}"
        return "you" if seat == self.seat else f"{name} (seat {seat})"

    def feed(self, line: str) -> Turn | None:
        event = wire.read(line)
        if isinstance(event, wire.MatchStarted):
            self.names = list(event.players)
            rest = ", ".join(self._who(s) for s in range(len(self.names)) if s != self.seat)
            return Turn([f"Hold'em: you are seat {self.seat}, against {rest}."], auto='{"type": "ready"}')
        if isinstance(event, wire.HandStarted):
            return Turn([
                "",
                f"Hand {event.hand + 1}: your cards {_cards(event.cards)}, your stack {event.stacks[self.seat]}; "
                f"button: {self._who(event.button)}; small blind {event.small_blind}: "
                f"{self._who(event.small_blind_seat)}; big blind {event.big_blind}: {self._who(event.big_blind_seat)}",
            ])
        if isinstance(event, wire.ActionSeen):
            return self._action(event)
        if isinstance(event, wire.StreetDealt):
            return Turn([f"{event.street.capitalize()}: {_cards(event.board)}  (pot {event.pot})"])
        if isinstance(event, wire.YourTurn):
            return self._your_turn(event)
        if isinstance(event, wire.HandEnded):
            return self._hand_ended(event)
        if isinstance(event, wire.TournamentEnded):
            return Turn([f"Tournament {event.tournament + 1} over: you placed {event.places[self.seat]:g}"])
        if isinstance(event, wire.MatchEnded):
            return Turn(["", f"Match over: you finished {event.scores[self.seat]:+g}."])
        if isinstance(event, wire.Garbled):
            raise wire.WireError(f"{event.reason}: {line}")
        return super().feed(line)  # a type hold'em does not send: the plain view

    def _action(self, seen: wire.ActionSeen) -> Turn:
        verbs = {"fold": ("folds", "fold"), "call": ("calls", "call") if seen.amount else ("checks", "check"),
                 "raise": ("raises to", "raise to"), "allin": ("goes all in to", "go all in to")}
        verb = verbs[seen.action][seen.seat == self.seat]
        what = f" {seen.bet}" if seen.action in ("raise", "allin") else (f" {seen.amount}" if seen.amount else "")
        return Turn([f"  {self._who(seen.seat)} {verb}{what}; pot {seen.pot}"])

    def _your_turn(self, turn: wire.YourTurn) -> Turn:
        self.act = turn
        words = {"fold": "fold", "call": "call" if turn.to_call else "check", "allin": "allin"}
        choices = [Choice("raise", turn.min_raise_to, turn.max_raise_to) if a == "raise" else Choice(words[a])
                   for a in turn.legal]
        board = _cards(turn.board) or "none yet"
        shown = [f"Your turn ({turn.street}): cards {_cards(turn.cards)}, board {board}, pot {turn.pot}, "
                 f"to call {turn.to_call}, your stack {turn.stacks[self.seat]}"]
        return Turn(shown, choices, question="Your action")

    def _hand_ended(self, end: wire.HandEnded) -> Turn:
        lines = [f"  {self._who(s.seat)} show {_cards(s.cards)} ({s.hand})" for s in end.shown]
        for pot in end.pots:
            won = " and ".join(self._who(w) for w in pot.winners)
            lines.append(f"  pot {pot.amount} to {won}" + (f" with {pot.hand}" if pot.hand else ""))
        mine = end.profits[self.seat]
        lines.append(f"  this hand you {'won' if mine >= 0 else 'lost'} {abs(mine)}; your stack {end.stacks[self.seat]}")
        return Turn(lines)

    def reply(self, choice: Choice, amount: int | None) -> str:
        word = {"check": "call"}.get(choice.word, choice.word)
        if word == "raise":
            return json.dumps({"type": "action", "action": "raise", "to": amount})
        return json.dumps({"type": "action", "action": word})


def hands_from_transcript(lines) -> list[dict[str, Any]]:
    """A hold'em transcript as hands (``GamePlugin.hands_of``). Every seat
    gets each notice; only the copy sent to the hand's lowest seat is read.
    The lines are read by ``holdem_wire.transcript_events``."""
    hands: list[dict[str, Any]] = []
    hand: dict[str, Any] | None = None
    reader = -1
    for seat, event in wire.transcript_events(lines):
        if isinstance(event, wire.HandStarted):
            if hand is None or hand["number"] != event.hand:
                reader = min(event.in_hand)
                # every seat dealt in, with its stack (a seat's own lines show only its own cards)
                hand = {"number": event.hand, "button": event.button,
                        "seats": {s: {"seat": s, "cards": [], "profit": 0, "stack": event.stacks[s]}
                                  for s in event.in_hand},
                        "streets": [{"name": "preflop", "board": [], "actions": [
                            {"seat": event.small_blind_seat, "words": f"small blind {event.small_blind}"},
                            {"seat": event.big_blind_seat, "words": f"big blind {event.big_blind}"}]}],
                        "pots": []}
                hands.append(hand)
            hand["seats"][seat]["cards"] = list(event.cards)
        elif hand is None or seat != reader:
            continue
        elif isinstance(event, wire.ActionSeen):
            street = hand["streets"][-1]
            street["actions"].append({"seat": event.seat, "words": _action_words(event, street)})
            hand["seats"][event.seat]["stack"] = event.stack
        elif isinstance(event, wire.StreetDealt):
            board = list(event.board if event.street == "flop" else event.board[-1:])
            hand["streets"].append({"name": event.street, "board": board, "actions": [], "pot": event.pot})
        elif isinstance(event, wire.HandEnded):
            _hand_ended(hand, event)
    for h in hands:
        h["seats"] = [h["seats"][s] for s in sorted(h["seats"])]
    return hands


def _action_words(seen: wire.ActionSeen, street: dict[str, Any]) -> str:
    """An ``action`` notice in the words of a drawn hand: the first raise of a
    street after the flop is a bet (there is nothing to raise yet; before
    the flop the big blind is the bet)."""
    if seen.action == "raise" and street["name"] != "preflop" and not any(
            a["words"].startswith(("bets", "raises", "all in")) for a in street["actions"]):
        return f"bets {seen.bet}"
    return {"fold": "folds", "call": f"calls {seen.amount}" if seen.amount else "checks",
            "raise": f"raises to {seen.bet}", "allin": f"all in for {seen.bet}"}[seen.action]


def _hand_ended(hand: dict[str, Any], end: wire.HandEnded) -> None:
    """A drawn hand's results from its ``hand_end``: profits, board, hands shown, pots."""
    for s, profit in enumerate(end.profits):
        if s in hand["seats"]:
            hand["seats"][s]["profit"] = profit
    hand["board"] = list(end.board)
    hand["shown"] = {x.seat: x.hand for x in end.shown}
    hand["pots"] = [{"amount": p.amount, "winners": list(p.winners), "words": p.hand} for p in end.pots]


def _cards(cards: Sequence[str]) -> str:
    return " ".join(card_text(c) for c in cards)


class HoldemPlugin(BuiltinGame[HoldemParams]):
    spec = GameSpec(
        id="holdem",
        version=2,  # 2: deals from the keyed chance stream (arena._seeds)
        title="Texas Hold'em",
        min_seats=2,
        max_seats=10,
        description="No-limit Texas Hold'em, 2-10 seats: cash hands or freezeout tournaments, as in the CodeProject "
                    "Hold'em challenge; limit or no-limit from an ACPC game definition (--gamedef).",
    )
    Params = HoldemParams
    rules = games.holdem.__doc__ or ""
    reusable_processes = True
    max_reply_bytes = 1024
    message_models = (*FRAMING_MODELS, *MODELS)
    default_lifetime = "tournament"
    payoff_label = score_label = "chips"

    hand_formats = frozenset({"phh", "acpc"})

    def hand_histories(self, names: list[str]) -> Any:
        from .holdem_phh import HandHistories

        return HandHistories(names)

    def acpc_refusal(self, params: dict[str, Any]) -> str | None:
        from .acpc import refusal

        return refusal(params)

    def native_parts(self) -> tuple[Any, ...]:
        from games.holdem._native import ENGINE  # hold'em's engine, built by games itself

        return (HOLDEM_COMPILED, ENGINE.path)

    def demo_bots(self) -> tuple[DemoBot, ...]:
        h = SAMPLE_BOTS / "holdem"
        return tuple(DemoBot(name, (h / script,)) for script, name in (
            ("random_bot.py", "random"), ("call_bot.py", "caller"), ("rule_bot.js", "rule-js")))

    def units(self, params: HoldemParams | None = None) -> dict[str, str]:
        if getattr(params, "mode", "cash") == "freezeout":  # places, as points
            return {"payoff": "points", "hands": "hands", "score": "points", "tournament": "points"}
        return super().units(params)

    def big_blind(self, params: HoldemParams | None = None) -> float | None:
        if params is None or params.mode == "freezeout":  # places, not chips
            return None
        return float(params.big_blind)  # (a --gamedef's own, set from the file)

    def luck_reader(self, params: HoldemParams, seed: str) -> Any | None:
        if params.mode == "freezeout":  # places are not chips: no luck in chips to take out
            return None
        from .holdem_luck import HoldemLuck

        return HoldemLuck(seed)

    round_note = ("every rotation of every table of --seats entrants (default: all of them, "
                  "at most 10); a match is -p hands=N hands or -p tournaments=N freezeouts")
    seatings = "rotations"
    playthrough_matches = (
        ({"hands": 3}, 7),
        ({"mode": "freezeout", "tournaments": 1, "stack": 8, "level_hands": 2}, 8),
    )

    def check_seats(self, params: HoldemParams, seats: int) -> None:
        super().check_seats(params, seats)
        g = params.gamedef
        if g is not None and g.num_players != seats:
            raise ValueError(f"the game definition (gamedef) is for {g.num_players} players (numPlayers = "
                             f"{g.num_players}) and {seats} bots were given: play it with {g.num_players}")

    def table_seats(self, entrants: int) -> int:
        return max(self.spec.min_seats, min(entrants, self.spec.max_seats))

    def check_params(self, params: HoldemParams) -> None:
        # A parameter of the other mode would be accepted and change nothing.
        params.check_mode()

    def invariants(self, params: HoldemParams) -> tuple[str, ...]:
        # Cash: every chip a seat wins another lost (no rake; antes and blinds
        # stay in the pot). Freezeout: the points add up to tournaments * n(n-1)/2,
        # a total that depends on the table size, which params do not fix.
        return ("zero_sum",) if params.mode == "cash" else ()

    def open_dialogue(self, params: HoldemParams, rng: random.Random, names: list[str] | None = None,
                      match_index: MatchIndex = 0) -> HoldemDealer:
        return HoldemDealer(params, rng, names or ["bot0", "bot1"], match_index)

    def random_reply(self, run: Any, seat: int, payload: bytes, rng: random.Random) -> str:
        msg = json.loads(payload)
        if msg["type"] == "match_start":
            return '{"type": "ready"}'
        action = rng.choice(msg["legal"])
        if action == RAISE:
            return json.dumps({"type": "action", "action": action,
                               "to": rng.randint(msg["min_raise_to"], msg["max_raise_to"])})
        return json.dumps({"type": "action", "action": action})

    def hands_of(self, lines) -> list[dict[str, Any]]:
        return hands_from_transcript(lines)

    def seat_view(self, params: HoldemParams, seat: int) -> HoldemSeatView:
        return HoldemSeatView(seat, params.model_dump(mode="json"))


PLUGIN = HoldemPlugin()
