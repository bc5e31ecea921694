"""The rules of a vonneumann match: sessions of games, each a deal, A's bet, B's call.

Pure and deterministic: the deal is a chance step whose outcome the caller
supplies (``apply_deal``), so tests can rig cards and a replay needs only the
list of actions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from games._base import IllegalAction

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


def whole_dollars(amount: int | float) -> int:
    """A bet as an int; a fraction of a dollar is against the rules."""
    if isinstance(amount, bool) or not isinstance(amount, (int, float)):
        raise IllegalAction(f"a bet is a number of dollars, not {type(amount).__name__}")
    if isinstance(amount, float):
        if not math.isfinite(amount):
            raise IllegalAction(f"a bet must be a finite number, not {amount}")
        if not amount.is_integer():
            raise IllegalAction(f"bets are whole dollars; {amount!r} is not a whole number")
        return int(amount)
    return amount


class VonNeumannMatch:
    """One match between seats 0 and 1.

    Roles alternate every game of the match, across session boundaries:
    seat ``first_a`` is A in match games 0, 2, 4, ...
    """

    def __init__(self, params: VonNeumannParams, first_a: int = 0) -> None:
        if first_a not in (0, 1):
            raise ValueError("first_a is seat 0 or 1")
        self.params = params
        self.first_a = first_a
        self.phase = Phase.DEAL
        self.session = 0  # index of the session being played
        self.game = 0  # index of the next game within the session
        self.match_game = 0  # index of the next game within the match
        self.money = [params.stack, params.stack]
        #: what each seat knows of its opponent's card in the previous game
        self.previous_card = [UNKNOWN_CARD, UNKNOWN_CARD]
        self.cards: tuple[float, float] | None = None  # (A's, B's) of the game in play
        self.bet = 0
        self.session_points: list[list[float]] = [[], []]
        self.session_games: list[int] = []
        self.settled = [0, 0]  # money won in finished sessions
        self.results: list[GameResult] = []

    # -- who is who --------------------------------------------------------

    @property
    def a_seat(self) -> int:
        return (self.first_a + self.match_game) % 2

    @property
    def b_seat(self) -> int:
        return 1 - self.a_seat

    @property
    def to_act(self) -> int | None:
        if self.phase is Phase.A_TO_ACT:
            return self.a_seat
        if self.phase is Phase.B_TO_ACT:
            return self.b_seat
        return None

    # -- steps -------------------------------------------------------------

    def apply_deal(self, a_card: float, b_card: float) -> None:
        if self.phase is not Phase.DEAL:
            raise IllegalAction(f"no deal is due now (phase {self.phase.value})")
        for card in (a_card, b_card):
            if not 0.0 <= card < 1.0:
                raise IllegalAction(f"a card is in [0, 1); got {card!r}")
        self.cards = (float(a_card), float(b_card))
        self.phase = Phase.A_TO_ACT

    def clamp(self, amount: int) -> int:
        """A's bet after the seed's limits: at most A's money, max_bet and B's money."""
        if amount <= 0:
            return 0
        return min(amount, self.money[self.a_seat], self.params.max_bet, self.money[self.b_seat])

    def apply_bet(self, amount: int | float) -> int:
        """A bets ``amount`` (0 or less passes); returns the bet after clamping."""
        if self.phase is not Phase.A_TO_ACT:
            raise IllegalAction(f"it is not A's turn (phase {self.phase.value})")
        self.bet = self.clamp(whole_dollars(amount))
        if self.bet == 0:
            self._finish(called=None, showdown=True)
        elif self.money[self.b_seat] < self.bet:
            # Unreachable while bets are clamped to B's money; kept because
            # the seed's controller guards it too: B cannot call, so folds.
            self._finish(called=None, showdown=False)
        else:
            self.phase = Phase.B_TO_ACT
        return self.bet

    def apply_call(self, call: bool) -> None:
        if self.phase is not Phase.B_TO_ACT:
            raise IllegalAction(f"it is not B's turn (phase {self.phase.value})")
        if not isinstance(call, bool):
            raise IllegalAction(f"B calls (true) or folds (false), not {call!r}")
        self._finish(called=call, showdown=call)

    # -- bookkeeping -------------------------------------------------------

    def _finish(self, called: bool | None, showdown: bool) -> None:
        assert self.cards is not None
        a, b = self.a_seat, self.b_seat
        ante = self.params.ante
        if not showdown:
            winner, amount = a, ante
            self.previous_card = [UNKNOWN_CARD, UNKNOWN_CARD]
        else:
            a_card, b_card = self.cards
            # A needs the strictly higher card: ties go to B, as in the seed's controller.
            winner = a if a_card > b_card else b
            amount = ante + self.bet
            self.previous_card[a] = b_card
            self.previous_card[b] = a_card
        self.money[winner] += amount
        self.money[1 - winner] -= amount
        self.results.append(
            GameResult(self.match_game, self.session, self.game, a, self.cards, self.bet,
                       called, showdown, winner, amount)
        )
        self.cards = None
        self.bet = 0
        self.game += 1
        self.match_game += 1
        p = self.params
        if self.game >= p.games_per_session or min(self.money) < p.ante:
            self._close_session()
        self.phase = Phase.OVER if self.session >= p.sessions else Phase.DEAL

    def _close_session(self) -> None:
        games = self.game
        for seat in (0, 1):
            won = self.money[seat] - self.params.stack
            self.settled[seat] += won
            self.session_points[seat].append(session_points(won, games))
        self.session_games.append(games)
        self.session += 1
        self.game = 0
        self.money = [self.params.stack, self.params.stack]

    # -- standings ---------------------------------------------------------

    def payoffs(self) -> list[int]:
        """Money won over the match so far, the session in play included."""
        if self.game == 0:
            return list(self.settled)
        return [self.settled[s] + self.money[s] - self.params.stack for s in (0, 1)]

    def scores(self) -> list[float]:
        """Sum of session points; an unfinished session counts as it stands."""
        totals = [math.fsum(points) for points in self.session_points]
        if self.game:
            for s in (0, 1):
                totals[s] += session_points(self.money[s] - self.params.stack, self.game)
        return totals


def session_points(won: int, games: int) -> float:
    """The seed's score for a session: money won / sqrt(games played)."""
    return won / math.sqrt(games)
