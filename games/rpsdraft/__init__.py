"""RPS card draft (``rpsdraft``): a two-player draft, then ten turns of one-card poker.

Rules
=====

=============  ==========================================================
seats          exactly 2
full deck      30 distinct cards: a symbol R, P or S and a number 0-9 ("R0" .. "S9")
draft          ``draft_rounds`` rounds (5); the full deck is shuffled once
main phase     ``turns`` turns (10) with hands of ``hand_size`` cards (3)
score          the number of turns a seat won; a series adds them up
fault          (tournaments) the faulting seat keeps its turns and wins no more
               (the worst it could have had: every turn left lost); the match
               ends; as in the seed, disqualified at its first fault by default
=============  ==========================================================

Draft. In each round seat 0 is offered the top two cards of the shuffled full
deck and seat 1 the next two. Both choose one at the same time; the chosen card
goes into the chooser's deck and the other one into the opponent's deck. Each
seat is then told which card it received. After five rounds each seat has a
deck of 10 cards, five of which the opponent has seen, and 10 cards remain.

Main phase. The two decks and the remaining cards are shuffled. Each seat draws
``hand_size`` cards. Every turn one card of the remaining cards is turned up as
the base card, both seats play a card from their hands at the same time, each
played card is combined with the base, and the winner gets a point. Then each
seat draws one card, if its deck has any left; the drawn card goes to the end
of the hand (the played card is removed, the others keep their order).

Who wins a turn, in this order:

1. a played card with the same number as the base (a pair) beats one without;
2. otherwise, or if both make a pair, the higher number wins;
3. with equal numbers, rock beats scissors, scissors beat paper, paper beats rock.

The cards are distinct, so there is always a winner.

A bot that answers with an index that is not a position among its choices is
disqualified: the match stops with an ``illegal_action`` fault (a crash stops it
with ``crashed``). The seed's game is symmetric (both seats act at once and are
dealt alike), so seats do not alternate over a series.

Messages
========

JSON lines, one object per line. Each match opens with ``match_start``
(answered ``{"type": "ready"}``) and closes with ``match_end`` (no reply;
``scores`` are the turns won, in seat order). Draft rounds and turns count
from 0; a card is written as its code, such as ``"R7"``.

* ``draft_pick`` (both seats at once, before either answers): ``round``, the
  draft round; ``cards``, the two cards offered to you. Answer
  ``{"type": "pick", "index": I}``: ``index`` 0 or 1 is the card you keep.
* ``draft_receive`` (no reply): ``round``; ``card``, the card the opponent
  did not keep this round, now in your deck.
* ``main_play`` (both seats at once): ``turn``; ``hand``, your hand in
  order; ``base``, the base card of this turn. Answer
  ``{"type": "play", "index": I}``: ``index`` is the position in ``hand`` of
  the card you play, from 0.
* ``turn_result`` (no reply): ``turn``; ``base``; ``your_card``, the card you
  played; ``opponent_card``, the card the opponent played; ``winner``, the
  seat that won the turn; ``turns_won``, the turns won so far by each seat,
  in seat order.

The wire protocol is in ``protocols.rpsdraft`` and docs/protocols/rpsdraft.md.
"""

from __future__ import annotations

from ._params import RpsDraftParams
from ._rules import FULL_DECK, SEATS, Phase, RpsDraftMatch, TurnResult, beats

__all__ = ["FULL_DECK", "SEATS", "Phase", "RpsDraftMatch", "RpsDraftParams", "TurnResult", "beats"]
