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

Fault rule (tournaments), the worst it could have had by playing on: a
faulting seat scores the score of its profit so far minus the most a hand
can cost (the ante and every bet of both rounds) for every hand not
finished, the one in play included; the other keeps its score. A fault ends
the match.

Messages
========

JSON lines, one object per line. Each match opens with ``match_start``
(answered ``{"type": "ready"}``; its ``role`` is ``"first"`` against a
strategy file, null otherwise) and closes with ``match_end`` (no reply).
Cards are always ``[low, high]``; hands count from 0; ``first_bettor`` and
``folded`` are ``"you"``, ``"opponent"`` or null, seen from the receiver.

* ``init`` (once per match, no reply): ``bet1`` and ``bet2``, the bet sizes
  of rounds 1 and 2; ``hands``, the hands in the match; ``opponent``,
  ``"bot"`` or ``"strategy"``.
* ``new_hand`` (every hand, no reply): ``hand``; ``cards``, your two cards;
  ``position``, ``"first"`` or ``"second"``; ``winnings``, your profit over
  the previous hands of the match.
* ``round1`` (your turn to bet in round 1): ``hand``; ``cards``; ``bets``,
  the bets made so far in round 1 (a bet or a raise is one each);
  ``options``, the legal actions now.
* ``draw`` (your turn to draw): ``hand``; ``cards``; ``bets``, the bets made
  in round 1; ``first_bettor``, who bet first in round 1 (null: nobody bet);
  ``opp_drew``, how many cards the opponent drew (null for the first player,
  who draws first). Answer ``{"type": "draw", "count": N}``: ``count`` is
  the integer 0, 1 or 2.
* ``round2`` (your turn to bet in round 2): ``hand``; ``cards``, after your
  draw; ``bets1``, the bets made in round 1; ``bets2``, the bets made so far
  in round 2; ``drew`` and ``opp_drew``, how many cards you and the opponent
  drew; ``first_bettor``, as in ``draw``; ``options``.
* Answer ``round1`` and ``round2`` with ``{"type": "action", "action": A}``:
  ``action`` is one of ``options`` (``check``/``bet`` with nothing to call,
  ``fold``/``call``/``raise`` facing a bet, no ``raise`` after 3 bets); a
  ``fold`` with nothing to call is accepted and played as a check.
* ``hand_end`` (every hand, no reply): ``hand``; ``profit``, your profit in
  this hand; ``winnings``, your profit over the match so far; ``folded``,
  who folded (null: there was a showdown); ``cards``, your cards at the end
  of the hand; ``opp_cards``, the opponent's cards after a showdown, null
  after a fold (folded cards are never shown).

A reply that is not one of these objects is a ``malformed_reply``; an
action or a draw count the rules do not allow now is an ``illegal_action``.

Strategy files, the exact value of a strategy and the seed's generator are in
``games.twocarddraw._strategy`` and ``_solve``; the wire protocol in
``protocols.twocarddraw`` and docs/protocols/twocarddraw.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._params import DEFAULT_BET1, DEFAULT_BET2, TwoCardDrawParams
from ._rules import ANTE, HANDS, MAX_BETS, RANKS, Hand, HandResult, compare, hand_key, normalize_action, options
from ._strategy import Strategy, StrategyError, format_strategy, parse_strategy, random_strategy, sample

if TYPE_CHECKING:
    from ._solve import (
        GENERATOR_EPS,
        Evaluator,
        best_response_policy,
        best_response_profit,
        generate,
        strategy_value,
    )

#: The solver's names, imported when first asked for: it needs numpy, whose import
#: would cost every match of the game (and every listing of the games) a tenth of a second.
_SOLVER = frozenset({"GENERATOR_EPS", "Evaluator", "best_response_policy", "best_response_profit", "generate",
                     "strategy_value"})


def __getattr__(name: str) -> Any:
    if name in _SOLVER:
        from . import _solve

        return getattr(_solve, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "ANTE",
    "DEFAULT_BET1",
    "DEFAULT_BET2",
    "GENERATOR_EPS",
    "HANDS",
    "MAX_BETS",
    "RANKS",
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
    "sample",
    "strategy_value",
]
