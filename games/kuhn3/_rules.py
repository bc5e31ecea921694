"""Rules engine for 3-player Kuhn poker (pure: no I/O, no clock, no global RNG).

The round is a state machine. Chance is an explicit step: while
``round.phase`` is a chance phase the caller picks an outcome (from its seeded
RNG, or rigged in a test) and hands it to ``apply_chance``. Seats are the
canonical indices 0, 1, 2; clockwise means increasing index.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from games._base import IllegalAction

from ._params import Kuhn3Params

SEATS = 3
#: Card ranks from lowest to highest; one of the four is left undealt.
CARDS = ("J", "Q", "K", "A")
RANK = {card: i for i, card in enumerate(CARDS)}


class Phase(Enum):
    BUTTON = "button"  # chance: where the first button sits
    DEAL = "deal"  # chance: one card per seat
    BETTING = "betting"  # a seat must act
    CONTINUE = "continue"  # chance: does the round end after this hand?
    OVER = "over"




@dataclass(frozen=True, slots=True)
class Action:
    """An action as the protocol names it: a verb and the total in front."""

    verb: str  # BLIND, BET, FOLD or PASS
    amount: int

    def __str__(self) -> str:
        return f"{self.verb} {self.amount}"


@dataclass(frozen=True, slots=True)
class HandResult:
    number: int
    button: int
    cards: tuple[str, str, str]
    actions: tuple[Action, Action, Action]  # each seat's latest action
    in_front: tuple[int, int, int]
    last_actor: int
    shown: tuple[str | None, str | None, str | None]  # None = folded or mucked
    pots: tuple[tuple[int, int], ...]  # (value, winning seat)


class Kuhn3Round:
    """One round (a cash game with an end condition) of 3-player Kuhn poker."""

    __slots__ = (
        "params",
        "phase",
        "money",
        "hand",
        "hands_played",
        "button",
        "first_button",
        "cards",
        "in_front",
        "price",
        "folded",
        "latest",
        "to_act",
        "last_actor",
        "_pending",
        "last_result",
    )

    def __init__(self, params: Kuhn3Params) -> None:
        self.params = params
        self.phase = Phase.BUTTON
        self.money = [0, 0, 0]
        self.hand = -1  # index of the current (or last) hand; -1 before the first
        self.hands_played = 0
        self.button = -1
        self.first_button = -1
        self.cards: tuple[str, str, str] = ("", "", "")
        self.in_front = [0, 0, 0]
        #: what every live seat must have in front to stay in (never drops:
        #: only a seat below it may fold)
        self.price = 0
        self.folded = [False, False, False]
        self.latest: list[Action] = []
        self.to_act = -1
        self.last_actor = -1
        self._pending: list[int] = []
        self.last_result: HandResult | None = None

    # -- chance -----------------------------------------------------------

    def chance_outcomes(self) -> list[tuple[object, Fraction]]:
        """Every outcome of the current chance step with its probability."""
        if self.phase is Phase.BUTTON:
            return [(seat, Fraction(1, SEATS)) for seat in range(SEATS)]
        if self.phase is Phase.DEAL:
            deals = list(itertools.permutations(CARDS, SEATS))
            return [(deal, Fraction(1, len(deals))) for deal in deals]
        if self.phase is Phase.CONTINUE:
            a, b = self.params.end_prob
            return [(True, Fraction(a, b)), (False, 1 - Fraction(a, b))]
        raise RuntimeError(f"no chance step in phase {self.phase.value}")

    def apply_chance(self, outcome: object) -> None:
        if self.phase is Phase.BUTTON:
            if outcome not in range(SEATS):
                raise ValueError(f"button must be a seat 0..2, got {outcome!r}")
            self.first_button = int(outcome)  # type: ignore[call-overload]
            # Every deal moves the button one seat on, so start one behind.
            self.button = (self.first_button - 1) % SEATS
            self.phase = Phase.DEAL
        elif self.phase is Phase.DEAL:
            self._start_hand(outcome)
        elif self.phase is Phase.CONTINUE:
            if not isinstance(outcome, bool):
                raise ValueError(f"continue outcome must be a bool (True = end), got {outcome!r}")
            self.phase = Phase.OVER if outcome else Phase.DEAL
        else:
            raise RuntimeError(f"no chance step in phase {self.phase.value}")

    def _start_hand(self, deal: object) -> None:
        cards = tuple(deal)  # type: ignore[call-overload]
        if len(cards) != SEATS or len(set(cards)) != SEATS or not set(cards) <= set(CARDS):
            raise ValueError(f"a deal is three distinct cards of {CARDS}, got {deal!r}")
        antes = self.params.antes
        self.hand += 1
        self.button = (self.button + 1) % SEATS
        self.cards = cards  # type: ignore[assignment]
        self.in_front = list(antes)
        self.price = max(antes)
        self.folded = [False, False, False]
        self.latest = [Action("BLIND", a) for a in antes]
        first = (self.button + 1) % SEATS
        self._pending = [(first + k) % SEATS for k in range(SEATS)]
        self.to_act = first
        self.last_actor = -1
        self.last_result = None
        self.phase = Phase.BETTING

    # -- betting ------------------------------------------------------------

    def legal_actions(self) -> list[tuple[Action, str]]:
        """The legal replies of the seat to act, each with a word for it."""
        if self.phase is not Phase.BETTING:
            return []
        mine, price, top = self.in_front[self.to_act], self.price, self.params.max_bet
        if mine == price:
            options = [(Action("BET", price), "check")]
        else:
            options = [(Action("BET", price), "call"), (Action("FOLD", mine), "fold")]
        if price < top:
            options.append((Action("BET", top), "bet" if mine == price else "raise"))
        return options

    def describe_legal(self) -> str:
        return " or ".join(f"{action} ({word})" for action, word in self.legal_actions())

    def check_action(self, seat: int, action: Action) -> None:
        """Raise IllegalAction with a sentence if ``seat`` may not play ``action`` now."""
        if self.phase is not Phase.BETTING:
            raise IllegalAction(f"no seat may act now: the hand is in phase {self.phase.value}")
        if seat != self.to_act:
            raise IllegalAction(f"it is seat {self.to_act}'s turn, not seat {seat}'s")
        mine, price, top = self.in_front[seat], self.price, self.params.max_bet
        verb, amount = action.verb, action.amount
        if verb == "PASS":
            raise IllegalAction(
                "PASS is only for a seat that cannot act (folded or all in); "
                f"this seat can act with {self.describe_legal()}"
            )
        if verb == "FOLD":
            if amount != mine:
                raise IllegalAction(
                    f"a fold keeps the amount in front unchanged: FOLD {mine}, not FOLD {amount}"
                )
            if mine == price:
                raise IllegalAction(f"there is no bet to fold to; check with BET {price}")
            return
        if verb == "BET":
            if amount == price or (amount == top and price < top):
                return
            if amount > top:
                raise IllegalAction(f"BET {amount} is above the maximum bet of {top}")
            if amount < price:
                raise IllegalAction(
                    f"BET {amount} is below the {price} needed to stay in the hand"
                )
            raise IllegalAction(f"BET {amount} is neither {price} (check or call) nor {top} (bet)")
        raise IllegalAction(f"{verb} is not an action; use BET or FOLD")

    def apply_action(self, seat: int, action: Action) -> None:
        self.check_action(seat, action)
        raises = action.verb == "BET" and action.amount > self.price
        if action.verb == "FOLD":
            self.folded[seat] = True
        self.in_front[seat] = action.amount
        self.latest[seat] = action
        self.last_actor = seat
        if raises:
            self.price = action.amount
            # A bet reopens the action for every other live seat, clockwise.
            others = ((seat + k) % SEATS for k in range(1, SEATS))
            self._pending = [s for s in others if not self.folded[s]]
        else:
            self._pending.remove(seat)
        if self.folded.count(False) == 1 or not self._pending:
            self._finish_hand()
        else:
            self.to_act = self._pending[0]

    def _finish_hand(self) -> None:
        first = (self.button + 1) % SEATS
        order = [(first + k) % SEATS for k in range(SEATS)]
        live = [s for s in order if not self.folded[s]]
        shown: list[str | None] = [None, None, None]
        if len(live) == 1:
            winner = live[0]  # everyone else folded: nothing is shown
        else:
            # Automatic mucking: in betting order, a card is turned up only if it
            # beats every card shown before it; the last one shown wins.
            best = -1
            winner = live[0]
            for s in live:
                if RANK[self.cards[s]] > best:
                    best = RANK[self.cards[s]]
                    shown[s] = self.cards[s]
                    winner = s
        pot = sum(self.in_front)
        for s in range(SEATS):
            self.money[s] -= self.in_front[s]
        self.money[winner] += pot
        self.last_result = HandResult(
            number=self.hand,
            button=self.button,
            cards=self.cards,
            actions=tuple(self.latest),  # type: ignore[arg-type]
            in_front=tuple(self.in_front),  # type: ignore[arg-type]
            last_actor=self.last_actor,
            shown=tuple(shown),  # type: ignore[arg-type]
            pots=((pot, winner),),
        )
        self.hands_played += 1
        self.to_act = -1
        if self.params.hands is not None:
            self.phase = Phase.OVER if self.hands_played >= self.params.hands else Phase.DEAL
        else:
            self.phase = Phase.CONTINUE
