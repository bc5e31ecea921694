"""von Neumann poker (``vonneumann``).

Rules
=====

=================  =====================================================
seats              exactly 2; they take turns being A (bets first) and B
cards              one each, a real number uniform in [0, 1), drawn anew
                   every game (a multiple of 2**-24, see below)
ante               each player antes ``ante`` (10) every game
A                  passes, or bets a whole number of dollars
B                  asked only after a bet: calls or folds
session            both start with ``stack`` (100); up to
                   ``games_per_session`` (50) games
match              ``sessions`` sessions (1000)
=================  =====================================================

* A's reply is a whole number of dollars. 0 or less is a pass. A larger bet is
  cut to the smallest of A's money, ``max_bet`` (50) and B's money, so B can
  always afford to call. "Money" is what a player holds before the ante is
  settled, as in the seed's controller: a player with $55 may bet $50 and end
  the game at -$5.
* A pass goes straight to a showdown. After a bet B calls (showdown) or folds
  (A wins B's ante, no card is shown). B is asked only when A bet and B can
  afford the bet (always true with the cut above).
* Showdown: the higher card wins ante + bet from the other player; on equal
  cards B wins (the seed's controller compares ``A > B``).
* After a showdown each player learns the opponent's card; after a fold
  nothing, and the previous card reads as -1. Both players always see both
  amounts of money.
* A session ends after ``games_per_session`` games, or as soon as a player
  has less than the ante. Then both get ``stack`` again for the next one.
* The A and B roles alternate every game through the whole match, across
  sessions; in match k of a series seat k mod 2 is A in the first game.
* Score: each session gives a player (money - stack) / sqrt(games in the
  session); a match score is the sum over its sessions, a series score the
  sum over its matches.
* Cards are k / 2**24 for a uniform integer k, so each is exactly a C
  ``float`` (the seed's ``Card`` type) and the decimal sent on the wire reads
  back as the very value the engine compares.
* Fault rule (tournaments), the worst it could have had by playing on: a
  faulting seat keeps the points of the sessions it finished and loses its
  whole stack (the least a session can score, and less) for every session not
  finished, the one in play included; the other keeps its score. A fault
  ends the match. Tournaments keep one process per entrant by default.

The wire protocol and the plugin object are in ``protocols.vonneumann``
(docs/protocols/vonneumann.md).
"""

from __future__ import annotations

from ._params import VonNeumannParams
from ._rules import UNKNOWN_CARD, GameResult, Phase, VonNeumannMatch, session_points, whole_dollars

__all__ = [
    "UNKNOWN_CARD",
    "GameResult",
    "Phase",
    "VonNeumannMatch",
    "VonNeumannParams",
    "session_points",
    "whole_dollars",
]
