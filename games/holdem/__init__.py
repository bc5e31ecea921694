"""Texas Hold'em (``holdem``): no-limit, 2 to 10 seats, cash or freezeout;
limit or no-limit from an ACPC game definition (``gamedef``).

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

Limit, and games from an ACPC game definition
=============================================

``gamedef`` (``--gamedef FILE``, ``-p gamedef=FILE``) plays the game an
ACPC game definition file describes, as the ACPC dealer reads it
(``holdem.limit.2p.reverse_blinds.game``, ``holdem.limit.3p.game``, and
the no-limit ones): its betting (``limit`` or ``nolimit``), its blinds
(heads-up, reverse blinds: the button posts the small blind), its stack
for every seat (in a limit file without one, ACPC's 2147483647), and in
limit its raise size and its cap on raises for each round. It sets
``stack``, ``small_blind`` and ``big_blind`` (and ``ante`` is 0: ACPC has
no antes); it is played in cash with as many seats as its ``numPlayers``.
The match keeps the definition as read (``match_start``'s ``params`` have
it under ``gamedef``, its keys those of the file in snake case, every one
filled in), so a stored match plays again without the file. Refused, in
words naming the file and the line: a file that is not a game definition
(a line it does not know, a value that is not a whole number, a key twice,
a list longer or shorter than its players or rounds, a blind above its
stack...), and one the arena does not play: another deck than 13 ranks of
4 suits, another number of hole cards than 2, other rounds than preflop,
flop (3 cards), turn and river, other blinds or first players than
hold'em's, unequal stacks, a cap on raises in no-limit.

* **Limit betting.** Everything above holds but the size of a raise: a
  bet or raise is to the bet plus the round's raise size, exactly (a seat
  whose stack does not cover it raises all-in for less), and once a round
  has had its cap of bets and raises (``maxRaises``; before the flop the
  big blind is not one), nobody may raise in it. An all-in is legal only
  where it is a call or that raise. What reopens the betting is as in
  no-limit. The requests say it: ``min_raise_to`` and ``max_raise_to``
  are the one ``to`` a raise may have, and ``act`` has ``raise_size``,
  ``raises`` and ``max_raises`` (below). A raise to another amount is a
  fault ("raise to 35 is not this limit game's raise: before the flop a
  raise is to 30, ..."), as is one past the cap ("the betting on the turn
  has reached its cap, 4 bets and raises: call or fold").

Formats
=======

* ``cash`` (default): ``hands`` hands (1000); every hand starts with
  ``stack`` chips a seat (400, that is 200 big blinds), so hands are
  independent; blinds ``small_blind``/``big_blind`` (1/2), ``ante`` (0);
  or those of a ``gamedef``.
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

``hands`` belongs to cash, ``tournaments`` and ``level_hands`` to freezeout:
set away from its default in the other mode, such a parameter is refused
(it would change nothing).

Messages
========

JSON lines, after the shared ``match_start``/``ready`` and before
``match_end``. Cards are two characters, rank then suit (``"Ah"``, ``"Td"``,
``"2c"``); lists indexed by seat have one entry per seat of the match.

* ``hand_start`` (to every seat dealt in): ``hand`` (the hand's number in
  the match, from 0), ``tournament`` (its number in freezeout, null in
  cash), ``seat`` (yours), ``cards`` (your two hole cards), ``button``,
  ``small_blind_seat``, ``big_blind_seat``, ``small_blind``, ``big_blind``,
  ``ante``, ``stacks`` and ``bets`` per seat after the antes and blinds were
  posted (a bet here is the blind posted), ``in_hand`` (the seats dealt in).
* ``act`` (to the seat to act; the reply is an ``action``): ``hand``,
  ``street`` (preflop, flop, turn or river), ``seat``, ``cards``, ``board``
  (the community cards so far), ``stacks`` (chips behind, bets not
  counted), ``bets`` (what each seat put in on this street), ``pot`` (every
  chip put in this hand, the bets included), ``to_call`` (what a call costs
  you; 0: a call is a check), ``button``, ``small_blind_seat``,
  ``big_blind_seat``, ``small_blind``, ``big_blind``, ``in_hand`` (the seats
  that have not folded), ``last_action`` (the hand's last action as
  ``seat``, ``action`` and ``amount``, the chips it put in; before anyone
  acted, the big blind's post, action ``big_blind``), ``legal`` (the
  actions you may take), ``min_raise_to`` and ``max_raise_to`` (the bounds
  of a raise's ``to``, null when raise is not legal; the largest is your
  bet plus your stack; in limit both are the one ``to`` a raise may
  have). In a limit game only (no-limit requests have none of these):
  ``raise_size`` (the round's size of a bet or raise), ``raises`` (the
  bets and raises made in the round so far) and ``max_raises`` (the
  round's cap).
* The reply ``action``: ``action`` is fold, call, raise or allin; ``to``
  goes with raise only, your bet on the street after raising (raise to, not
  by): ``{"type": "action", "action": "raise", "to": 12}``.
* ``action`` (notice to every seat of the hand after each action, the
  actor's included; a seat that faulted shows as a fold): ``hand``,
  ``seat`` (who acted), ``action``, ``amount`` (the chips it put in, 0 for a
  check or a fold), ``bet`` (that seat's bet on the street after it),
  ``stack`` (its chips left), ``pot`` (after it), ``all_in`` (true when it
  has no chips left, never for a fold).
* ``street`` (to every seat of the hand, each time the flop, the turn or
  the river is dealt): ``hand``, ``street``, ``board``, ``pot``.
* ``hand_end`` (to every seat of the hand): ``hand``, ``board``, ``shown``
  (every seat still in at a showdown, empty when the others folded: its
  ``seat``, its ``cards`` and its best ``hand`` in words), ``pots`` (the
  main pot, then the side pots: ``amount``, ``seats`` that could win it,
  ``winners``, the winning ``hand`` in words or null when won without a
  showdown; chips nobody called come back as a pot of their owner's
  alone), ``stacks`` after the pots were paid, ``profits`` (each seat's
  chips won in the hand, negative when lost).
* ``tournament_end`` (freezeout, to every seat): ``tournament``, ``places``
  (1 for the winner, ties averaged), ``points`` (seats - place).

Faults: the match goes on without a faulting seat (a timeout, a crash, an
illegal or malformed reply): it is folded out of the hand in play (its chips
there stay in the pot), dealt no more hands and told nothing more; in a
freezeout it is out of the tournament in play, last. With fewer than two
seats left the match ends. Its score (tournaments), the worst it could have
had by playing on, fixed when it left: cash, the chips it had won in finished
hands minus its whole stack for every hand not finished, the one in play
included (in limit, the most the caps let a seat put in a hand, if that is
less); freezeout, the points of the tournaments it finished (last place,
no points, in the others). The others play on and keep what they win. In a
game definition's match the table then has fewer seats than its
``numPlayers``: its hands are dealt as hold'em deals them at that size,
with the same blinds and raise sizes.

The engine is ``HoldemHand`` (one hand, in C: ``_engine.c``, built once
into the arena's cache) and ``Freezeout`` (one tournament); game
definitions are read by ``read_gamedef`` into a ``GameDef``; the wire
protocol is ``protocols.holdem`` and docs/protocols/holdem.md.
"""

from __future__ import annotations

from ._cards import NAMES, RANKS, SUITS, card_names, describe, evaluate, load_evaluator, parse_cards
from ._gamedef import GameDef, GameDefError, parse_gamedef, read_gamedef
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
    "GameDef",
    "GameDefError",
    "HoldemHand",
    "HoldemParams",
    "Legal",
    "Pot",
    "card_names",
    "describe",
    "evaluate",
    "load_evaluator",
    "parse_cards",
    "parse_gamedef",
    "read_gamedef",
]
