"""One hand of Texas Hold'em, no-limit or limit: blinds, betting, side pots, showdown.

The engine is C (``_engine.c``, built once into the arena's cache by
``_native``): ``HoldemHand`` is its type, the only copy of the rules, which
the Python dialogue, the PHH export, the ACPC translation and the PokerKit
oracle test (tests/games/test_holdem_oracle.py) all run on. Seats are
indexes, cards are ints (``_cards``), the deck is given by the caller
(chance is the caller's, from its seed). The betting rules are those of the
rules page (``games.holdem``); they agree with PokerKit's no-limit hold'em,
which the test suite replays hands against.

``order`` is the seats dealt in, clockwise from the seat after the button
(the button last). Heads-up the button posts the small blind.

Every field is read as a fresh copy (``hand.stack`` is a new list each
time); the hand changes only through ``act`` and ``fold_out``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .._base import IllegalAction
from ._native import ENGINE

PREFLOP, FLOP, TURN, RIVER, OVER = range(5)
STREETS = ("preflop", "flop", "turn", "river")
FOLD, CALL, RAISE, ALLIN = "fold", "call", "raise", "allin"
ACTIONS = (FOLD, CALL, RAISE, ALLIN)


class Legal(NamedTuple):
    """What the seat to act may do now."""

    actions: tuple[str, ...]
    #: what a call puts in (the whole stack when it does not cover the bet)
    call: int
    #: bounds of ``to`` for a raise (None when raising is not allowed)
    min_to: int | None
    max_to: int | None


class Pot(NamedTuple):
    amount: int
    #: the seats that could win it, in order from the button's left
    seats: tuple[int, ...]
    winners: tuple[int, ...]
    #: the winning hand's value (None: won without a showdown)
    value: int | None


_engine = ENGINE.module()
_engine.setup(IllegalAction, Legal, Pot)
#: the engine's hand type, loaded at run time: its members (listed below) are untyped
_EngineHand: Any = _engine.Hand


class HoldemHand(_EngineHand):
    """A hand from the posting of antes and blinds to the payment of the pots.

    ``HoldemHand(stacks, button, small_blind, big_blind, ante, deck, *,
    limit=None)``: ``stacks`` has one entry per seat (at most 10); seats with
    no chips are not dealt in. ``deck`` gives the cards: two per seat in
    ``order``, then five for the board. ``limit`` makes it a limit hand:
    ``(raise_sizes, max_raises)``, one of each per street (preflop, flop,
    turn, river; ``HoldemParams.limit()``): a raise is to the bet plus the
    street's size (all-in for less when the stack does not cover it), and
    at most ``max_raises`` bets and raises are made on the street; the
    ``legal()`` bounds of a raise are then one amount, and an all-in is
    legal only where it is a call or that raise.

    ``legal()`` (a ``Legal``), ``verify(action, to=None)`` and ``act(action,
    to=None)`` (the chips put in; streets are dealt and the pots paid as the
    betting ends) raise ``IllegalAction`` with the reason in words;
    ``fold_out(seat)`` takes a seat that faulted out of the hand, whoever's
    turn it is. Views: ``to_act``, ``over``, ``profits()``, ``in_hand()``,
    ``last_action`` (seat, action, chips put in), ``after_action`` (that
    seat's bet and stack just after), ``posted`` (stacks and bets after the
    antes and blinds), ``pots`` and ``values`` (eval7's, at a showdown);
    ``limit`` (as given) and ``raises`` (the bets and raises made on the
    street).
    """

    __slots__ = ()
