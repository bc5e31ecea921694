"""3-player Kuhn poker (``kuhn3``).

Rules
=====

=============  ==========================================================
seats          exactly 3, numbered clockwise 0, 1, 2
deck           J < Q < K < A; each seat gets one card, one card stays undealt
antes          every seat puts its ante in front before the deal (1, 1, 1)
betting        one round; the only bet takes a seat to ``max_bet`` in front (2)
round          hands are played until chance ends the round: after each hand
               it ends with probability a/b (1/1000), or after ``hands`` hands
bankroll       infinite: totals start at 0 and may go negative
=============  ==========================================================

* The button is drawn uniformly at random for the first hand and moves one seat
  clockwise after every hand. The seat after the button acts first.
* A seat facing no bet checks or bets; a seat facing a bet calls or folds.
  Folding when there is nothing to call is not allowed (check instead).
* After a bet every other seat still in the hand acts once more; betting ends
  when the seat just before the bettor has acted. With no bet it ends when the
  button has checked.
* If one seat is left it takes the pot without showing. Otherwise the highest
  card wins the whole pot. Cards are turned up automatically in betting order,
  each only if it beats every card shown before it; the rest are mucked.
* Score after a round: bankroll / sqrt(hands), as the original dealer printed.
  Tournaments rank by bankroll.
* Fault rule (tournaments), the worst it could have had by playing on: a
  faulting seat keeps its bankroll and loses the most a hand can cost (the
  larger of ``max_bet`` and the antes: 2 chips by default) in the hand in
  play and in every hand still to come: all of them with ``hands``, their
  expected number when the round ends by chance (b/a hands from a hand in
  play with ``end_prob`` a/b: 2,000 chips by default). The others keep their
  bankrolls. A fault ends the round (the protocol needs its three seats).

The wire protocol and the plugin object are in ``protocols.kuhn3``
(docs/protocols/kuhn3.md).
"""

from __future__ import annotations

from ._params import Kuhn3Params
from ._rules import CARDS, SEATS, Action, HandResult, Kuhn3Round, Phase, engine_params

__all__ = ["CARDS", "SEATS", "Action", "HandResult", "Kuhn3Params", "Kuhn3Round", "Phase", "engine_params"]
