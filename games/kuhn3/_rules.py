"""Rules engine for 3-player Kuhn poker (pure: no I/O, no clock, no global RNG).

The rules are C (``_engine.c``, built once into the arena's cache by
``_native``): ``Kuhn3Round`` is its type, the only copy of the rules, which
the Python dialogue plays on and the compiled one (protocols/kuhn3_compiled.c,
which includes the engine's source) works on in place. This module gives it
its Python face: the parameters, the value classes it answers with, and the
list of chance outcomes.

The round is a state machine. Chance is an explicit step: while
``round.phase`` is a chance phase the caller picks an outcome (from its seeded
RNG, or rigged in a test) and hands it to ``apply_chance``. Seats are the
canonical indices 0, 1, 2; clockwise means increasing index.

Every field is read as a fresh copy (``round.money`` is a new list each
time); the round changes only through ``apply_chance`` and ``apply_action``.
"""

from __future__ import annotations

import itertools
from typing import Any
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from games._base import IllegalAction

from ._native import ENGINE
from ._params import Kuhn3Params

_engine = ENGINE.module()

SEATS: int = _engine.SEATS
#: Card ranks from lowest to highest; one of the four is left undealt.
CARDS: tuple[str, ...] = _engine.CARDS


class Phase(Enum):
    BUTTON = "button"  # chance: where the first button sits
    DEAL = "deal"  # chance: one card per seat
    BETTING = "betting"  # a seat must act
    CONTINUE = "continue"  # chance: does the round end after this hand?
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Action:
    """An action as the protocol names it: a verb and the total in front."""

    verb: str  # BET, FOLD or PASS (BLIND: the ante, from the dealer)
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


def engine_params(params: Kuhn3Params) -> tuple[int, ...]:
    """The parameters as the engine takes them (``k3_params_read`` in
    _engine.c, their one reader, for this module and the compiled dialogue):
    antes x3, max_bet, hands (-1: the round ends by chance), end_prob a, b."""
    return (*params.antes, params.max_bet, -1 if params.hands is None else params.hands, *params.end_prob)


# The engine's phase codes are the order of its PHASES.
_engine.setup(IllegalAction, Action, HandResult, tuple(Phase(name) for name in _engine.PHASES))


#: the engine's round type, loaded at run time: its members are untyped
_EngineRound: Any = _engine.Round


class Kuhn3Round(_EngineRound):
    """One round (a cash game with an end condition) of 3-player Kuhn poker.

    ``apply_chance(outcome)`` (a seat for the first button, three cards for a
    deal, True to end the round after a hand), ``legal_actions()`` (each with
    a word: check, call, fold, bet, raise), ``describe_legal()``,
    ``check_action(seat, action)`` and ``apply_action(seat, action)``
    (IllegalAction with the reason in words). Views: ``phase``, ``money``,
    ``hand`` (-1 before the first), ``hands_played``, ``button``,
    ``first_button``, ``cards``, ``in_front``, ``price`` (what a live seat
    must have in front to stay in), ``folded``, ``latest`` (each seat's
    latest action), ``to_act``, ``last_actor`` and ``last_result`` (a
    HandResult, None from the next deal on).
    """

    __slots__ = ("params",)

    def __init__(self, params: Kuhn3Params) -> None:
        super().__init__(engine_params(params))
        self.params = params

    def chance_outcomes(self) -> list[tuple[object, Fraction]]:
        """Every outcome of the current chance step with its probability."""
        phase = self.phase
        if phase is Phase.BUTTON:
            return [(seat, Fraction(1, SEATS)) for seat in range(SEATS)]
        if phase is Phase.DEAL:
            deals = list(itertools.permutations(CARDS, SEATS))
            return [(deal, Fraction(1, len(deals))) for deal in deals]
        if phase is Phase.CONTINUE:
            a, b = self.params.end_prob
            return [(True, Fraction(a, b)), (False, 1 - Fraction(a, b))]
        raise RuntimeError(f"no chance step in phase {phase.value}")
