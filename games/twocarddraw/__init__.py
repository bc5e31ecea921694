"""TwoCardDraw (``twocarddraw``): a two-player draw poker with five ranks.

Rules
=====

=============  ==========================================================
players        two: the *first* player and the *second* player
cards          0..4; every card is drawn independently and uniformly
               (with replacement), so both players may hold the same card
ante           1 each, before the deal; each player gets two cards
round 1        betting, bets of ``bet1`` (2 unless given; 1..5)
draw           each player exchanges 0, 1 or 2 cards
round 2        betting, bets of ``bet2`` (4 unless given; bet1..3*bet1)
showdown       the better hand takes the pot; equal hands split it
=============  ==========================================================

* Betting: the first player checks or bets. The second player may then fold,
  call or raise (after a check: check or bet; a fold with nothing to call
  counts as a check). Then it is the first player's turn again after a raise,
  and so on. At most 3 bets in a round (the opening bet counts as one); a
  call, or a check after a check, ends the round. A fold ends the hand: the
  other player takes the pot and nothing is shown.
* The first player acts first in both rounds and draws first; the second
  player draws knowing how many cards the first drew. Drawing one card
  replaces the lower card.
* Hands: a pair beats any two different cards; a higher pair beats a lower
  one; otherwise the higher top card wins, then the higher low card; the same
  two cards tie and the pot is split.

Two ways to play
================

* **Against a strategy file** (``strategy=PATH``): one bot, seat 0, is always
  the first player (as in the seed); the built-in opponent plays the file's
  probabilities as the second player. The file gives the stakes.
* **Two bots**: the seats take turns as the first player, seat 0 first in hand
  0 of match 0 (seat 1 in odd-numbered matches of a series).

Scoring: per seat, ``max(0, profit + hands)`` (10,000 hands by default, so
profit + 10,000 as in the seed); several matches of a series are averaged.

Chance: each hand draws the same number of cards from the seed, whatever the
players do (two cards and two replacements per position), so every seating
of the same bots sees the same cards (duplicate deals).

Fault rule (tournaments): a faulting seat scores the score of a profit of
min(profit, 0) minus the most a hand can cost for every hand not finished;
the other keeps its score.

Strategy files, the exact value of a strategy and the seed's generator are in
``games.twocarddraw._strategy`` and ``_solve``; the wire protocol in
``protocols.twocarddraw`` and docs/protocols/twocarddraw.md.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from games._base import GameSpec

from ._params import DEFAULT_BET1, DEFAULT_BET2, TwoCardDrawParams
from ._rules import HANDS, Hand, HandResult, compare, hand_key, normalize_action, options
from ._solve import (
    GENERATOR_EPS,
    Evaluator,
    best_response_policy,
    best_response_profit,
    generate,
    strategy_value,
)
from ._strategy import Strategy, StrategyError, format_strategy, parse_strategy, random_strategy

__all__ = [
    "DEFAULT_BET1",
    "DEFAULT_BET2",
    "GENERATOR_EPS",
    "HANDS",
    "PLUGIN",
    "Evaluator",
    "Hand",
    "HandResult",
    "Strategy",
    "StrategyError",
    "TwoCardDrawParams",
    "best_response_policy",
    "best_response_profit",
    "compare",
    "format_strategy",
    "generate",
    "hand_key",
    "normalize_action",
    "options",
    "parse_strategy",
    "random_strategy",
    "strategy_value",
]


class _TwoCardDrawPlugin:
    spec = GameSpec(
        id="twocarddraw",
        version=2,  # 2: a fixed number of cards per hand from the seed (duplicate deals)
        title="TwoCardDraw",
        min_seats=1,
        max_seats=2,
        description="Two-card draw poker, cards 0..4; one bot against a strategy file, or two bots.",
    )
    Params = TwoCardDrawParams
    reusable_processes = True
    #: the longest reply line accepted: every valid reply is a small JSON object
    max_reply_bytes = 1024
    round_note = "both seatings of every pair of entrants (a match is -p hands=N hands)"

    @staticmethod
    def load_strategy(path: str | Path) -> Strategy:
        """Read and parse a strategy file (the only file access of the game).

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
        if params.strategy is None:
            return
        strategy = self.load_strategy(params.strategy)
        self._check_stakes(params, strategy)

    @staticmethod
    def _check_stakes(params: TwoCardDrawParams, strategy: Strategy) -> None:
        for name, given, have in (("bet1", params.bet1, strategy.bet1), ("bet2", params.bet2, strategy.bet2)):
            if given is not None and given != have:
                raise StrategyError(f"{name}={given} was given but {params.strategy} is for {name}={have}")

    def open_dialogue(self, params: TwoCardDrawParams, rng: random.Random, names: list[str] | None = None,
                      match_index: int = 0) -> Any:
        # Imported here because the protocol layer sits above the rules.
        from protocols.twocarddraw import TwoCardDrawDealer

        strategy = None
        if params.strategy is not None:
            strategy = self.load_strategy(params.strategy)
            self._check_stakes(params, strategy)
        if names is None:
            names = ["bot"] if strategy is not None else ["bot0", "bot1"]
        return TwoCardDrawDealer(params, rng, names, match_index, strategy)

    @staticmethod
    def aggregate(per_match_scores: list[list[float]]) -> list[float]:
        """The seed's overall score: the mean over the matches (test cases)."""
        if not per_match_scores:
            return []
        return [sum(col) / len(per_match_scores) for col in zip(*per_match_scores)]


PLUGIN = _TwoCardDrawPlugin()
