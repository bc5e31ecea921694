"""The rules of a vonneumann match: sessions of games, each a deal, A's bet, B's call.

The engine is C (``_engine.c``, built once into the arena's cache by
``_native``): ``VonNeumannMatch`` is its type, the only copy of the rules
(the deal, the cut of a bet, the showdown or fold, the end of a session,
payoffs and scores), which the Python dialogue and the compiled one
(protocols/vonneumann_compiled.c, which includes the same source and plays
on the very object the dealer holds) both run on.

Pure and deterministic: the deal is a chance step whose outcome the caller
supplies (``apply_deal``), so tests can rig cards and a replay needs only the
list of actions. Every field is read as a fresh copy (``m.money`` is a new
list each time); the match changes only through its methods (and ``money``
may be set, for tests of the limits).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from games._base import IllegalAction

from ._native import ENGINE
from ._params import VonNeumannParams

#: What a bot is told about the opponent's previous card when it was not shown.
UNKNOWN_CARD = -1.0


class Phase(Enum):
    DEAL = "deal"  # chance: two cards are due
    A_TO_ACT = "a"  # A bets or passes
    B_TO_ACT = "b"  # B calls or folds
    OVER = "over"  # every session has been played


@dataclass(frozen=True, slots=True)
class GameResult:
    """How one game ended, in canonical seats."""

    match_game: int
    session: int
    game: int
    a_seat: int
    cards: tuple[float, float]  # (A's card, B's card)
    bet: int  # after clamping; 0 is a pass
    called: bool | None  # None when B was not asked
    showdown: bool
    winner: int  # seat
    amount: int  # what the winner took from the other seat


_engine = ENGINE.module()
# The engine's phases are these members, in its order (a name the enum lacks fails here).
_engine.setup(IllegalAction, tuple(Phase(name) for name in _engine.PHASES))

#: A bet as an int; a fraction of a dollar is against the rules (``IllegalAction``).
whole_dollars = _engine.whole_dollars
#: The seed's score for a session: ``session_points(won, games)`` is won / sqrt(games).
session_points = _engine.session_points
#: the engine's match type, loaded at run time: its members (listed below) are untyped
_EngineMatch: Any = _engine.Match


class VonNeumannMatch(_EngineMatch):
    """One match between seats 0 and 1.

    Roles alternate every game of the match, across session boundaries:
    seat ``first_a`` is A in match games 0, 2, 4, ...

    ``apply_deal(a_card, b_card)``, ``apply_bet(amount)`` (the bet after the
    cut: ``clamp``) and ``apply_call(call)`` raise ``IllegalAction`` with the
    reason in words. Views: ``phase``, ``to_act``, ``a_seat``, ``b_seat``,
    ``session``, ``game``, ``match_game``, ``money``, ``previous_card``,
    ``cards``, ``bet``, ``settled``, ``session_games``, ``session_points``,
    ``payoffs()``, ``scores()``. ``results`` logs the games played through
    these methods (a compiled dialogue's games leave no entry).
    """

    __slots__ = ("params", "results")

    def __init__(self, params: VonNeumannParams, first_a: int = 0) -> None:
        super().__init__(params.ante, params.max_bet, params.stack, params.games_per_session, params.sessions,
                         first_a)
        self.params = params
        self.results: list[GameResult] = []

    def apply_bet(self, amount: int | float) -> int:
        """A bets ``amount`` (0 or less passes); returns the bet after clamping."""
        bet: int = super().apply_bet(amount)
        if self.phase is not Phase.B_TO_ACT:  # B is not asked: the game is over
            self.results.append(GameResult(*self.last_game))
        return bet

    def apply_call(self, call: bool) -> None:
        super().apply_call(call)
        self.results.append(GameResult(*self.last_game))
