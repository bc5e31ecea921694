"""The TwoCardDraw JSON-lines protocol, as a sans-I/O dealer dialogue.

The messages follow the seed's TopCoder methods: ``new_hand`` (notice),
``round1``/``draw``/``round2`` (requests), ``hand_end`` (notice, with the
opponent's cards when there was a showdown, which is the seed's
``showdown``). Per match::

    match_start -> ready
    init                                    (notice: stakes, hands)
    per hand:  new_hand                     (notice to every bot seat)
               round1 -> action             (the player to act, until round 1 ends)
               draw -> draw                 (first player, then second)
               round2 -> action             (until round 2 ends)
               hand_end                     (notice to every bot seat)
    match_end

With a strategy file the second player is the built-in opponent: only seat 0
is a bot and it is always the first player. Choices where the seed is silent
are listed in docs/protocols/twocarddraw.md.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

import games.twocarddraw
from games import GameSpec, IllegalAction
from games.twocarddraw import (
    ANTE,
    MAX_BETS,
    RANKS,
    Hand,
    Strategy,
    StrategyError,
    TwoCardDrawParams,
    parse_strategy,
    sample,
)

from ._builtin import SAMPLE_BOTS, BuiltinGame
from ._contract import Exchange, MatchOutcome
from ._errors import ProtocolError
from .seatview import Choice, SeatView, Turn
from .jsonlines import (
    FRAMING_MODELS, MatchIndex, Message, Reply, abandoned, decode, encode, end_match, match_number, series_position,
    start_match, tell,
)

GAME = "twocarddraw"
VERSION = 1

Cards = list[int]
Who = Literal["you", "opponent"]


class Init(Message):
    type: Literal["init"] = "init"
    bet1: int = Field(description="bet size in round 1")
    bet2: int = Field(description="bet size in round 2")
    hands: int = Field(description="hands in this match")
    opponent: Literal["bot", "strategy"] = Field(description="another bot, or the built-in strategy player")


class NewHand(Message):
    type: Literal["new_hand"] = "new_hand"
    hand: int = Field(description="hand number, from 0")
    cards: Cards = Field(description="your two cards, low first")
    position: Literal["first", "second"] = Field(description="first acts first in both rounds and draws first")
    winnings: int = Field(description="your profit over the previous hands of this match")


class Round1(Message):
    type: Literal["round1"] = "round1"
    hand: int
    cards: Cards
    bets: int = Field(description="bets (a bet or a raise each) made so far in round 1")
    options: list[str] = Field(description="the legal actions")


class Draw(Message):
    type: Literal["draw"] = "draw"
    hand: int
    cards: Cards
    bets: int = Field(description="bets made in round 1")
    first_bettor: Who | None = Field(description="who bet first in round 1 (null: nobody bet)")
    opp_drew: int | None = Field(description="cards the opponent drew (null: you draw first)")


class Round2(Message):
    type: Literal["round2"] = "round2"
    hand: int
    cards: Cards
    bets1: int = Field(description="bets made in round 1")
    bets2: int = Field(description="bets made so far in round 2")
    drew: int = Field(description="cards you drew")
    opp_drew: int = Field(description="cards the opponent drew")
    first_bettor: Who | None = Field(description="who bet first in round 1 (null: nobody bet)")
    options: list[str]


class HandEnd(Message):
    type: Literal["hand_end"] = "hand_end"
    hand: int
    profit: int = Field(description="your profit in this hand")
    winnings: int = Field(description="your profit over the match so far")
    folded: Who | None = Field(description="who folded (null: showdown)")
    cards: Cards = Field(description="your cards at the end of the hand")
    opp_cards: Cards | None = Field(description="the opponent's cards, only after a showdown")


class Action(Reply):
    type: Literal["action"]
    action: Literal["check", "bet", "fold", "call", "raise"]


class DrawReply(Reply):
    type: Literal["draw"]
    count: int = Field(strict=True, description="0, 1 or 2; drawing 1 replaces the lower card")


MODELS: list[type[BaseModel]] = [Init, NewHand, Round1, Draw, Round2, HandEnd, Action, DrawReply]

_ACTIONS_BY_INDEX = {0: ("check", "check", "bet"), 1: ("fold", "call", "raise")}


def _expect_action(options: tuple[str, ...]):
    return lambda: '{"type": "action", "action": X} with X one of ' + ", ".join(options)


_EXPECT_DRAW = '{"type": "draw", "count": 0, 1 or 2}'


class TwoCardDrawDealer:
    """Runs one match: a bot against a strategy, or two bots (seats alternate
    as first player every hand; seat 0 starts in even-numbered matches)."""

    def __init__(self, params: TwoCardDrawParams, rng: random.Random, names: list[str],
                 match_index: MatchIndex = 0, strategy: Strategy | None = None) -> None:
        self.params = params
        self.rng = rng
        # The built-in opponent's choices draw from a stream of their own, so
        # that the cards depend on the seed alone; of the same kind as the
        # match's (keyed, when the arena deals), so its mixed play cannot be
        # predicted from the actions it shows either.
        self.strategy_rng = type(rng)(rng.getrandbits(128))
        self.names = list(names)
        self.match_index = match_index
        self.strategy = strategy
        self.seats = 1 if strategy is not None else 2
        if len(self.names) != self.seats:
            want = "one bot against a strategy" if strategy is not None else "two bots"
            raise ValueError(f"twocarddraw with these parameters needs {want}, got {len(self.names)} bots")
        if strategy is not None:
            self.bet1, self.bet2 = strategy.bet1, strategy.bet2
        else:
            self.bet1, self.bet2 = params.stakes()
        self.money = [0] * self.seats
        #: sum of squared per-hand profits, per seat (for standard errors)
        self.sum_squares = [0] * self.seats
        self.played = 0
        self.hand_no: int | None = None
        self.hand: Hand | None = None
        # For ``known``: where the dialogue stands, who holds which position
        # and what was dealt in the hand in play, and each seat's view of the
        # last finished hand (one, not all: a match may have millions).
        self._stage = "match_start"
        self._seat_of: tuple[int | None, int | None] = (None, None)
        self._dealt: list[tuple[int, int]] = []
        self._last: list[tuple | None] = [None] * self.seats

    # -- reports --------------------------------------------------------------

    def context(self) -> dict[str, int | None]:
        return {"hand": self.hand_no}

    def standings(self) -> tuple[int, list[int]]:
        return self.played, list(self.money)

    def scores(self) -> list[float]:
        """The seed's score: profit + the match's hands (10,000), at least 0."""
        return [float(max(0, m + self.params.hands)) for m in self.money]

    def forfeit(self, seat: int) -> list[float]:
        """The fault rule, the worst legal continuation: the profit so far, and
        every hand not finished (the one in play included) counts as the most
        a hand can cost (the ante and every bet of both rounds); the score's
        floor of 0 stays."""
        scores = self.scores()
        worst_hand = ANTE + MAX_BETS * (self.bet1 + self.bet2)
        unfinished = self.params.hands - self.played
        scores[seat] = float(max(0, self.money[seat] - unfinished * worst_hand + self.params.hands))
        return scores

    def known(self, seat: int) -> tuple:
        """What ``seat`` may know now: the match as ``match_start`` and
        ``init`` say it, where the dialogue stands, the hands finished and
        every seat's winnings; in the hand in play its position, its own
        cards (dealt, and after its draw) and every action and draw count;
        of the last finished hand the same, its profit, and the opponent's
        cards only if they were shown down."""
        p = self.params
        shown = p if p.strategy is None else p.model_copy(update={"strategy": Path(p.strategy).name})
        match = (match_number(self.match_index, seat), seat, tuple(self.names),
                 tuple(sorted(shown.model_dump(mode="json").items())), self.strategy is not None,
                 self.bet1, self.bet2)
        hand = self.hand
        current = None
        if hand is not None and self._stage in ("new_hand", "act", "draw"):
            pos = self._seat_of.index(seat)
            current = (self.hand_no, pos, self._dealt[pos], hand.cards[pos], tuple(hand.history))
        return (match, self._stage, self.played, tuple(self.money), self._last[seat], current)

    # -- the dialogue ---------------------------------------------------------

    def abandon(self) -> list[tuple[int, bytes]]:
        """Every seat's ``match_end`` (not completed) when another seat faulted."""
        return abandoned(self.match_index, self.scores(), self.seats)

    def run(self):  # -> Dialogue
        p = self.params
        roles = ["first"] if self.strategy is not None else None
        # Bots are told the strategy file's name, not where the arena keeps it.
        shown = p if p.strategy is None else p.model_copy(update={"strategy": Path(p.strategy).name})
        yield from start_match(GAME, VERSION, self.match_index, self.names, shown, roles)
        self._stage = "init"
        init = Init(bet1=self.bet1, bet2=self.bet2, hands=p.hands,
                    opponent="strategy" if self.strategy is not None else "bot")
        yield from tell([(s, init) for s in range(self.seats)])
        rng = self.rng
        for n in range(p.hands):
            self.hand_no = n
            if self.strategy is not None:
                seat_of: tuple[int | None, int | None] = (0, None)
            else:
                first = (n + series_position(self.match_index)) % 2
                seat_of = (first, 1 - first)
            # Every hand draws the same number of cards from the seed whatever the
            # players do: two cards and two replacements per position. Every
            # seating of the same bots then sees the same cards (duplicate deals).
            deal = ((rng.randrange(RANKS), rng.randrange(RANKS)), (rng.randrange(RANKS), rng.randrange(RANKS)))
            spare = ([rng.randrange(RANKS), rng.randrange(RANKS)], [rng.randrange(RANKS), rng.randrange(RANKS)])
            hand = self.hand = Hand(self.bet1, self.bet2, deal)
            self._seat_of, self._dealt, self._stage = seat_of, list(hand.cards), "new_hand"
            yield from tell([
                (seat, NewHand(hand=n, cards=list(hand.cards[pos]), position=("first", "second")[pos],
                               winnings=self.money[seat]))
                for pos, seat in enumerate(seat_of) if seat is not None
            ])
            while hand.phase != "over":
                pos = hand.to_act
                seat = seat_of[pos]
                if hand.phase == "draw":
                    count = self._strategy_draw(hand) if seat is None else (yield from self._ask_draw(seat, pos, n))
                    hand.draw(pos, count, spare[pos][:count])
                elif seat is None:
                    hand.act(pos, self._strategy_action(hand))
                else:
                    yield from self._ask_action(seat, pos, n)
            result = hand.result
            assert result is not None
            ends = []
            for pos, seat in enumerate(seat_of):
                if seat is None:
                    continue
                self.money[seat] += result.profit[pos]
                self.sum_squares[seat] += result.profit[pos] ** 2
                ends.append((seat, HandEnd(
                    hand=n, profit=result.profit[pos], winnings=self.money[seat],
                    folded=None if result.folded is None else ("you" if result.folded == pos else "opponent"),
                    cards=list(result.final[pos]),
                    opp_cards=list(result.final[1 - pos]) if result.showdown else None,
                )))
                self._last[seat] = (n, pos, self._dealt[pos], tuple(hand.history), result.final[pos],
                                    result.final[1 - pos] if result.showdown else None, result.profit[pos])
            self.played += 1
            self._stage = "hand_end"
            yield from tell(ends)
        self.hand_no = None
        self._stage = "match_end"
        yield from end_match(self.match_index, self.scores(), self.seats)
        return MatchOutcome(payoffs=list(self.money), hands=self.played)

    def _who(self, pos: int, who: int | None) -> Who | None:
        return None if who is None else ("you" if who == pos else "opponent")

    def _ask_action(self, seat: int, pos: int, n: int):
        hand = self.hand
        assert hand is not None
        options = hand.options()
        if hand.phase == "round1":
            msg: Message = Round1(hand=n, cards=list(hand.cards[pos]), bets=hand.bets, options=list(options))
        else:
            drew, opp_drew = hand.drew[pos], hand.drew[1 - pos]
            assert drew is not None and opp_drew is not None  # round 2 comes after both draws
            msg = Round2(hand=n, cards=list(hand.cards[pos]), bets1=hand.bets1, bets2=hand.bets,
                         drew=drew, opp_drew=opp_drew,
                         first_bettor=self._who(pos, hand.first_bettor), options=list(options))
        expect = _expect_action(options)
        self._stage = "act"
        (line,) = yield Exchange([(seat, encode(msg))], expect)
        reply = decode(seat, line, Action, expect())
        try:
            hand.act(pos, reply.action)
        except IllegalAction as exc:
            raise ProtocolError(seat, "illegal_action", line, expect(), str(exc)) from None

    def _ask_draw(self, seat: int, pos: int, n: int):
        hand = self.hand
        assert hand is not None
        msg = Draw(hand=n, cards=list(hand.cards[pos]), bets=hand.bets1,
                   first_bettor=self._who(pos, hand.first_bettor), opp_drew=hand.drew[1 - pos])
        self._stage = "draw"
        (line,) = yield Exchange([(seat, encode(msg))], _EXPECT_DRAW)
        reply = decode(seat, line, DrawReply, _EXPECT_DRAW)
        if reply.count not in (0, 1, 2):
            raise ProtocolError(seat, "illegal_action", line, _EXPECT_DRAW,
                                f"a player draws 0, 1 or 2 cards, not {reply.count}")
        return reply.count

    # -- the built-in opponent (always the second player) -----------------------

    def _first(self, hand: Hand) -> int:
        return 1 if hand.first_bettor == 1 else 0

    def _strategy_action(self, hand: Hand) -> str:
        s = self.strategy
        assert s is not None
        lo, hi = hand.cards[1]
        if hand.phase == "round1":
            dist = s.round1[(lo, hi, hand.bets)]
        else:
            drew0, drew1 = hand.drew
            assert drew0 is not None and drew1 is not None  # round 2 comes after both draws
            dist = s.round2[(lo, hi, hand.bets1, hand.bets, drew0, drew1, self._first(hand))]
        i = sample(dist, self.strategy_rng)
        return _ACTIONS_BY_INDEX[min(hand.bets, 1)][i]

    def _strategy_draw(self, hand: Hand) -> int:
        s = self.strategy
        assert s is not None
        lo, hi = hand.cards[1]
        drew0 = hand.drew[0]
        assert drew0 is not None  # the strategy is the second player: the first has drawn
        return sample(s.draw[(lo, hi, hand.bets1, drew0, self._first(hand))], self.strategy_rng)


class TwoCardDrawPlugin(BuiltinGame[TwoCardDrawParams]):
    spec = GameSpec(
        id="twocarddraw",
        # 2: a fixed number of cards per hand from the seed (duplicate deals);
        # 3: deals from the keyed chance stream (arena._seeds)
        version=3,
        title="TwoCardDraw",
        min_seats=1,
        max_seats=2,
        description="Two-card draw poker, cards 0..4; one bot against a strategy file, or two bots.",
    )
    Params = TwoCardDrawParams
    payoff_label = "chips"
    score_label = "points"  # chips won + the match's hands, at least 0
    rules = games.twocarddraw.__doc__ or ""
    reusable_processes = True
    #: the longest reply line accepted: every valid reply is a small JSON object
    max_reply_bytes = 1024
    message_models = (*FRAMING_MODELS, *MODELS)
    round_note = "both seatings of every pair of entrants (a match is -p hands=N hands)"
    commands = {"strategy": "games.twocarddraw._command:strategy_app"}

    def big_blind(self, params: TwoCardDrawParams | None = None) -> float | None:
        return 1.0  # the ante, the only forced bet
    playthrough_matches = (
        ({"hands": 4}, 7),
        ({"hands": 3, "strategy": str(SAMPLE_BOTS / "twocarddraw" / "strategy_2_4.txt")}, 8),
    )

    @staticmethod
    def load_strategy(path: str | Path) -> Strategy:
        """Read and parse a strategy file (the game's only file access).

        Raises StrategyError (a ValueError) saying what is wrong."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise StrategyError(f"cannot read strategy file {path}: {exc}") from None
        try:
            return parse_strategy(text)
        except StrategyError as exc:
            raise StrategyError(f"{path}: {exc}") from None

    def check_params(self, params: TwoCardDrawParams) -> None:
        """Raise StrategyError if the strategy file is unusable with ``params``."""
        if params.strategy is not None:
            self._check_stakes(params, self.load_strategy(params.strategy))

    def invariants(self, params: TwoCardDrawParams) -> tuple[str, ...]:
        # between two bots every chip one wins the other loses; against a strategy file only the bot is paid
        return ("zero_sum",) if params.strategy is None else ()

    def exploit(self, params: TwoCardDrawParams) -> Any:
        """``arena exploit``: the bot's play as the second player, solved exactly (protocols/twocarddraw_exploit.py)."""
        from .twocarddraw_exploit import exploit_model

        return exploit_model(params)

    def check_seats(self, params: TwoCardDrawParams, seats: int) -> None:
        if params.strategy is not None and seats != 1:
            raise ValueError(f"against a strategy file give exactly one bot, got {seats}")
        if params.strategy is None and seats != 2:
            raise ValueError(f"twocarddraw needs two bots, or one bot and a strategy file; got {seats} bots")

    @staticmethod
    def _check_stakes(params: TwoCardDrawParams, strategy: Strategy) -> None:
        for name, given, have in (("bet1", params.bet1, strategy.bet1), ("bet2", params.bet2, strategy.bet2)):
            if given is not None and given != have:
                raise StrategyError(f"{name}={given} was given but {params.strategy} is for {name}={have}")

    def open_dialogue(self, params: TwoCardDrawParams, rng: random.Random, names: list[str] | None = None,
                      match_index: MatchIndex = 0) -> TwoCardDrawDealer:
        strategy = None
        if params.strategy is not None:
            strategy = self.load_strategy(params.strategy)
            self._check_stakes(params, strategy)
        if names is None:
            names = ["bot"] if strategy is not None else ["bot0", "bot1"]
        return TwoCardDrawDealer(params, rng, names, match_index, strategy)

    def aggregate(self, per_match: Sequence[Sequence[float]]) -> list[float]:
        """The seed's overall score: the mean over the matches (test cases)."""
        if not per_match:
            return []
        return [sum(col) / len(per_match) for col in zip(*per_match)]

    def legal_replies(self, run: Any, seat: int, payload: bytes) -> list[str]:
        msg = json.loads(payload)
        if msg["type"] == "match_start":
            return ['{"type": "ready"}']
        if msg["type"] == "draw":
            return [json.dumps({"type": "draw", "count": n}) for n in range(3)]
        # the engine's rule, not the options listed: a fold with nothing to
        # call is taken as a check
        bets = run.hand.bets
        legal = []
        for action in ("check", "bet", "fold", "call", "raise"):
            try:
                games.twocarddraw.normalize_action(action, bets)
            except IllegalAction:
                continue
            legal.append(json.dumps({"type": "action", "action": action}))
        return legal

    def random_reply(self, run: Any, seat: int, payload: bytes, rng: random.Random) -> str:
        msg = json.loads(payload)
        if msg["type"] == "match_start":
            return '{"type": "ready"}'
        if msg["type"] == "draw":
            return json.dumps({"type": "draw", "count": rng.randrange(3)})
        return json.dumps({"type": "action", "action": rng.choice(msg["options"])})

    def seat_view(self, params: Any, seat: int) -> "TwoCardDrawSeatView":
        return TwoCardDrawSeatView(seat, params.model_dump(mode="json"))


def _cards(cards: list[int]) -> str:
    return " and ".join(str(c) for c in cards)


class TwoCardDrawSeatView(SeatView):
    """One seat's hands for a person: its cards, the betting, the draw, each hand's result."""

    def feed(self, line: str) -> Turn | None:
        m = json.loads(line)
        kind = m.get("type")
        if kind == "init":
            return Turn([f"Bets of {m['bet1']} in round 1 and {m['bet2']} in round 2; {m['hands']} hands; ante 1"])
        if kind == "new_hand":
            return Turn(["", f"Hand {m['hand'] + 1}: your cards {_cards(m['cards'])}; you act {m['position']}; "
                             f"you have won {m['winnings']:+d} so far"])
        if kind in ("round1", "round2"):
            bets = m["bets"] if kind == "round1" else m["bets2"]
            said = f"{bets} bet{'s' if bets != 1 else ''} so far" if bets else "no bet yet"
            return Turn([f"  {'Round 1' if kind == 'round1' else 'Round 2'} betting ({said}); your cards "
                         f"{_cards(m['cards'])}"], [Choice(o) for o in m["options"]], question="Your action")
        if kind == "draw":
            other = "" if m["opp_drew"] is None else f"; your opponent drew {m['opp_drew']}"
            return Turn([f"  Draw: your cards {_cards(m['cards'])}{other} (drawing 1 replaces your lower card)"],
                        [Choice("stand"), Choice("draw", 1, 2)], question="Your draw")
        if kind == "hand_end":
            if m["folded"] is not None:
                how = "you folded" if m["folded"] == "you" else "your opponent folded"
            else:
                how = f"showdown: your {_cards(m['cards'])} against {_cards(m['opp_cards'] or [])}"
            return Turn([f"  {how}: you {'won' if m['profit'] >= 0 else 'lost'} {abs(m['profit'])} "
                         f"({m['winnings']:+d} in this match)"])
        return super().feed(line)

    def reply(self, choice: Choice, amount: int | None) -> str:
        if choice.word == "stand":
            return json.dumps({"type": "draw", "count": 0})
        if choice.word == "draw":
            return json.dumps({"type": "draw", "count": amount})
        return json.dumps({"type": "action", "action": choice.word})



PLUGIN = TwoCardDrawPlugin()
