"""Texas Hold'em (``holdem``): no-limit, 2 to 10 seats, cash or freezeout.

Rules
=====

* **Deal.** Each seat with chips gets two hole cards; five community cards
  come as the flop (3), the turn (1) and the river (1). A fresh 52-card deck
  is shuffled from the match's seed every hand.
* **Button and blinds.** The button moves one seat to the left every hand.
  The seat to its left posts the small blind, the next the big blind; every
  seat pays the ante (if any) first, as dead money. Heads-up the button posts
  the small blind, acts first before the flop and last after it. A seat that
  cannot cover a blind or the ante posts what it has and is all-in.
* **Order.** Before the flop the seat after the big blind acts first (after
  the largest blind actually posted, if the big blind was short); after it,
  the first seat still in to the left of the button.
* **Betting (no limit).** A seat may fold (only when there is something to
  call), call (a check when there is nothing to call; a call it cannot cover
  puts in its whole stack), raise, or go all-in. The smallest bet is the big
  blind; a raise must raise by at least the last full bet or raise of the
  street (and by at least the big blind), and at most by everything the seat
  has. An all-in that is short of a full raise does not reopen the betting:
  a seat that has acted since the last full raise may raise again only if
  short all-ins in a row have added up to a full raise and what it must
  call is at least a full raise; otherwise it calls or folds. The first
  bet or raise of a street counts as full whatever its size (an all-in for
  less than the big blind included), as in PokerKit. Nobody may
  raise when every other seat still in is all-in or covered. A betting round
  ends when every seat still in has acted and matched the largest bet or is
  all-in.
* **All-in.** When at most one seat still in has chips behind, the rest of
  the board is dealt without betting.
* **Pots.** The chips are split into a main pot and side pots by how much
  each seat put in; a pot is won by the best hand among the seats that put
  in enough to contest it. Chips nobody called go back to their owner.
* **Showdown.** Every seat still in shows; the best five of its seven cards
  count (evaluated by eval7). Equal hands split a pot; odd chips go to the
  first winner to the left of the button, pot by pot (PokerKit pays pots
  with the same winners as one, so its odd chips can land elsewhere).
* **Legal actions** are sent with every request, with the smallest and
  largest raise; anything else is a fault, reported in words ("raise to 150
  is below the minimum raise to 200").

Formats
=======

* ``cash`` (default): ``hands`` hands (1000); every hand starts with
  ``stack`` chips a seat (400, that is 200 big blinds), so hands are
  independent; blinds ``small_blind``/``big_blind`` (1/2), ``ante`` (0).
  The button is seat ``hand % seats``. Score: chips won. With
  ``--duplicate`` every seating of the same bots gets the same cards by
  position.
* ``freezeout`` (the seed's tournament): ``tournaments`` tournaments (1000,
  as the seed planned) of equal ``stack``; the blinds and ante double every
  ``level_hands`` hands (10); a seat with no chips is out and the button moves
  among the seats left; a tournament ends when one seat has every chip.
  Tournament ``t`` starts with the button at seat ``t % seats``. Score:
  points by finishing place, ``seats - place`` (the winner ``seats - 1``,
  the first out 0), summed over the tournaments. Seats out in the same hand
  place by the chips they had when it began; equal stacks share the places
  (the points are averaged).

Faults: the match goes on without a faulting seat (a timeout, a crash, an
illegal or malformed reply): it is folded out of the hand in play (its chips
there stay in the pot), dealt no more hands and told nothing more; in a
freezeout it is out of the tournament in play, last. With fewer than two
seats left the match ends. Its score (tournaments), the worst it could have
had by playing on, fixed when it left: cash, the chips it had won in finished
hands minus its whole stack for every hand not finished, the one in play
included; freezeout, the points of the tournaments it finished (last place,
no points, in the others). The others play on and keep what they win.

The engine is ``HoldemHand`` (one hand, in C: ``_engine.c``, built once
into the arena's cache) and ``Freezeout`` (one tournament); the wire
protocol is ``protocols.holdem`` and docs/protocols/holdem.md.
"""

from __future__ import annotations

from ._cards import NAMES, RANKS, SUITS, card_names, describe, evaluate, load_evaluator, parse_cards
from ._params import HoldemParams
from ._rules import ACTIONS, ALLIN, CALL, FOLD, OVER, PREFLOP, RAISE, STREETS, HoldemHand, Legal, Pot
from ._tournament import Freezeout

__all__ = [
    "ACTIONS",
    "ALLIN",
    "CALL",
    "FOLD",
    "NAMES",
    "OVER",
    "PREFLOP",
    "RAISE",
    "RANKS",
    "STREETS",
    "SUITS",
    "Freezeout",
    "HoldemHand",
    "HoldemParams",
    "Legal",
    "Pot",
    "card_names",
    "describe",
    "evaluate",
    "load_evaluator",
    "parse_cards",
]
