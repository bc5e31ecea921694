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
* Fault rule (tournaments): a faulting seat scores min(bankroll, 0) minus its chips in
  front in the hand in play; the others keep their bankrolls.

The wire protocol is in ``protocols.kuhn3`` and docs/protocols/kuhn3.md.
"""

from __future__ import annotations

import random
from typing import Any

from games._base import GameSpec

from ._params import Kuhn3Params
from ._rules import CARDS, Action, HandResult, Kuhn3Round, Phase

__all__ = [
    "CARDS",
    "PLUGIN",
    "Action",
    "HandResult",
    "Kuhn3Params",
    "Kuhn3Round",
    "Phase",
]


class _Kuhn3Plugin:
    spec = GameSpec(
        id="kuhn3",
        version=1,
        title="3-player Kuhn poker",
        min_seats=3,
        max_seats=3,
        description="Four cards, one each, antes of 1, one bet to 2; the seed's text protocol.",
    )
    Params = Kuhn3Params

    #: the text protocol has no match boundaries: one process per round
    reusable_processes = False
    #: the longest reply line accepted (the longest valid one, 'Money: ...', is under 80)
    max_reply_bytes = 256
    #: what one round of a tournament is
    round_note = "every ordered choice of 3 entrants (each in every seat)"

    def open_dialogue(
        self, params: Kuhn3Params, rng: random.Random, names: list[str] | None = None, match_index: int = 0
    ) -> Any:
        # Imported here because the protocol layer sits above the rules.
        from protocols.kuhn3 import Kuhn3Dealer, seeded_chance

        return Kuhn3Dealer(params, seeded_chance(rng))


PLUGIN = _Kuhn3Plugin()
