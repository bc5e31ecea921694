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

Messages
========

JSON lines. Each match opens with ``match_start`` (answered
``{"type":"ready"}``) and closes with ``match_end`` (no reply). In every
game A gets ``a_turn`` and, only after a bet, B gets ``b_turn``. Both carry:

* ``match``: this match's index among those this process plays, from 0;
* ``session``: the session within the match, and ``game``: the game within
  the session, both from 0;
* ``match_game``: the game within the match, from 0; A and B swap each time
  it goes up;
* ``card``: your card;
* ``opponent_previous_card``: the opponent's card in the previous game of the
  match if that game ended in a showdown, else -1 (also in the first game;
  not reset between sessions);
* ``money`` and ``opponent_money``: your money and the opponent's, before this
  game's ante is settled.

``a_turn`` adds ``max_bet``: the cut in force now, the smallest of the
``max_bet`` parameter, your money and the opponent's. Answer
``{"type":"bet","amount":N}``: ``amount`` is a whole number of dollars (a
JSON number with no fraction, such as 7.0, counts as the integer); 0 or less
passes, a larger one is cut to ``max_bet``; a fraction of a dollar is an
illegal action.

``b_turn`` adds ``bet``: A's bet after the cut, which you can always afford.
Answer ``{"type":"call","call":true}`` to call, or with ``false`` to fold.

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
