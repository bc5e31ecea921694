"""One hand of no-limit Texas Hold'em: blinds, betting, side pots, showdown.

Pure and fast: seats are indexes, cards are ints (``_cards``), the deck is
given by the caller (chance is the caller's, from its seed). The betting
rules are those of the rules page (``games.holdem``); they agree with
PokerKit's no-limit hold'em, which the test suite replays hands against.

``order`` is the seats dealt in, clockwise from the seat after the button
(the button last). Heads-up the button posts the small blind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .._base import IllegalAction
from ._cards import evaluate_holes

PREFLOP, FLOP, TURN, RIVER, OVER = range(5)
STREETS = ("preflop", "flop", "turn", "river")
FOLD, CALL, RAISE, ALLIN = "fold", "call", "raise", "allin"
ACTIONS = (FOLD, CALL, RAISE, ALLIN)
_ALL = ACTIONS
_NO_FOLD = (CALL, RAISE, ALLIN)
_NO_RAISE_ALLIN_CALLS = (FOLD, CALL, ALLIN)
_NO_RAISE = (FOLD, CALL)
_CHECK_ONLY = (CALL,)


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


class HoldemHand:
    """A hand from the posting of antes and blinds to the payment of the pots.

    ``stacks`` has one entry per seat; seats with no chips are not dealt in.
    ``deck`` gives the cards: two per seat in ``order``, then five for the board.
    """

    __slots__ = (
        "order", "start", "stack", "bet", "committed", "folded", "hole", "board", "_deck_board",
        "button", "small_blind_seat", "big_blind_seat", "small_blind", "big_blind", "ante",
        "street", "max_bet", "raise_size", "actors", "acted", "short_allins", "live", "pot",
        "last_action", "after_action", "pots", "values", "posted",
    )

    def __init__(self, stacks: Sequence[int], button: int, small_blind: int, big_blind: int,
                 ante: int, deck: Sequence[int]) -> None:
        n = len(stacks)
        if not 0 <= button < n or stacks[button] <= 0:
            raise ValueError(f"the button must be a seat with chips, not seat {button}")
        order = [s for s in range(button + 1, n) if stacks[s] > 0] + [s for s in range(button + 1) if stacks[s] > 0]
        k = len(order)
        if k < 2:
            raise ValueError("a hand needs at least two seats with chips")
        self.order = order
        self.start = list(stacks)
        self.stack = stack = list(stacks)
        self.bet = bet = [0] * n
        self.committed = committed = [0] * n
        self.folded = folded = [True] * n
        self.hole = hole = [None] * n
        for s, a, b in zip(order, deck[0:2 * k:2], deck[1:2 * k:2]):
            folded[s] = False
            hole[s] = (a, b)
        self._deck_board = tuple(deck[2 * k: 2 * k + 5])
        self.board: list[int] = []
        self.button = button
        self.small_blind, self.big_blind, self.ante = small_blind, big_blind, ante
        if k == 2:  # heads-up: the button is the small blind
            sb, bb = order[1], order[0]
        else:
            sb, bb = order[0], order[1]
        self.small_blind_seat, self.big_blind_seat = sb, bb
        pot = 0
        if ante:
            for s in order:  # antes are dead money: straight to the pot, not a bet
                paid = ante if ante < stack[s] else stack[s]
                stack[s] -= paid
                committed[s] = paid
                pot += paid
        #: (bet, stack) of the last seat to act, just after its action
        self.after_action = (0, 0)
        paid = small_blind if small_blind < stack[sb] else stack[sb]
        stack[sb] -= paid
        bet[sb] = paid
        committed[sb] += paid
        paid_big = big_blind if big_blind < stack[bb] else stack[bb]
        stack[bb] -= paid_big
        bet[bb] = paid_big
        committed[bb] += paid_big
        #: (seat, action, chips put in) of the last action, the big blind's at first
        self.last_action: tuple[int, str, int] = (bb, "big_blind", paid_big)
        self.pot = pot + paid + paid_big
        self.max_bet = paid if paid > paid_big else paid_big
        self.live = len(order)
        self.street = PREFLOP
        self.pots: list[Pot] = []
        self.values: dict[int, int] = {}
        #: (stacks, bets) just after the antes and blinds: when nobody can act,
        #: the hand is played out below, and the dealer still announces this
        self.posted = (list(stack), list(bet))
        self._begin_betting()

    # -- what the seat to act may do -----------------------------------------

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is (None once the hand is over)."""
        return self.actors[0] if self.street != OVER else None

    def legal(self) -> Legal:
        s = self.actors[0]
        stack, bet_s, max_bet = self.stack[s], self.bet[s], self.max_bet
        to_call = max_bet - bet_s
        call = to_call if to_call < stack else stack
        if self._raise_refusal(s, to_call) is None:
            top = stack + bet_s
            low = (self.raise_size if self.raise_size > self.big_blind else self.big_blind) + max_bet
            return Legal(_ALL if to_call else _NO_FOLD, call, low if low < top else top, top)
        if stack <= to_call:  # all-in is a call
            return Legal(_NO_RAISE_ALLIN_CALLS, call, None, None)
        return Legal(_NO_RAISE if to_call else _CHECK_ONLY, call, None, None)

    def _raise_refusal(self, s: int, to_call: int) -> str | None:
        """Why ``s`` (who must put in ``to_call`` to call) may not raise now, or None if it may."""
        raise_size = self.raise_size
        short = self.short_allins
        if to_call < raise_size or (short and s in self.acted and sum(short) < raise_size):
            return ("you have acted since the last full raise, and what was added after it "
                    "is short of a full raise, so the betting is not reopened: call or fold")
        stack, bet, max_bet = self.stack, self.bet, self.max_bet
        if stack[s] <= to_call:
            return "your stack does not cover more than a call"
        folded = self.folded
        for i in self.order:
            if i != s and not folded[i] and stack[i] + bet[i] > max_bet:
                return None
        return "every other player still in is all-in or covered: there is nobody to raise"

    def _check(self, s: int, action: str, to: int | None) -> int:
        """The chips ``action`` puts in for ``s``, the seat to act (for a
        raise: its bet after it); IllegalAction with the reason if it may not."""
        stack, bet_s = self.stack[s], self.bet[s]
        to_call = self.max_bet - bet_s
        if action == CALL:
            return to_call if to_call < stack else stack
        if action == FOLD:
            if to_call <= 0:
                raise IllegalAction("fold with nothing to call is not allowed: check (call 0) instead")
            return 0
        if action == ALLIN:
            if stack > to_call:
                refusal = self._raise_refusal(s, to_call)
                if refusal is not None:
                    raise IllegalAction(f"all-in would be a raise, and {refusal}")
            return stack
        if action != RAISE:
            raise IllegalAction(f"{action!r} is not an action: fold, call, raise or allin")
        refusal = self._raise_refusal(s, to_call)
        if refusal is not None:
            raise IllegalAction(f"you may not raise: {refusal}")
        if to is None:
            raise IllegalAction("a raise needs the amount to raise to")
        top = stack + bet_s
        low = min(top, max(self.raise_size, self.big_blind) + self.max_bet)
        if to < low:
            raise IllegalAction(f"raise to {to} is below the minimum raise to {low}")
        if to > top:
            raise IllegalAction(f"raise to {to} is more than you have: all-in is a raise to {top}")
        return to - bet_s

    def verify(self, action: str, to: int | None = None) -> None:
        """Raise IllegalAction, with the reason in words, unless the seat to
        act may take ``action`` (``to``: the bet after a raise)."""
        if self.street == OVER:
            raise IllegalAction("the hand is over")
        self._check(self.actors[0], action, to)

    # -- playing -------------------------------------------------------------

    def act(self, action: str, to: int | None = None) -> int:
        """The seat to act takes ``action``; returns the chips it put in.
        Streets are dealt and the pots paid as the betting ends."""
        if self.street == OVER:
            raise IllegalAction("the hand is over")
        actors = self.actors
        s = actors[0]
        put = self._check(s, action, to)
        del actors[0]
        self.acted.add(s)
        if action == FOLD:
            self.folded[s] = True
            self.live -= 1
        elif put and self.bet[s] + put > self.max_bet:  # a raise (an all-in may be one)
            self._raise_to(s, self.bet[s] + put)
        elif put:  # a call
            self.stack[s] -= put
            self.bet[s] += put
            self.committed[s] += put
            self.pot += put
        self.last_action = (s, action, put)
        self.after_action = (self.bet[s], self.stack[s])  # before the street ends
        if not self.actors or self.live <= 1:
            self._end_betting()
        return put

    def fold_out(self, s: int) -> None:
        """Seat ``s`` leaves the hand now, whoever's turn it is (it faulted):
        folded, its chips in the pot lost, never asked again."""
        if self.street == OVER or self.folded[s]:
            return
        self.folded[s] = True
        self.live -= 1
        if s in self.actors:
            self.actors.remove(s)
        self.last_action = (s, FOLD, 0)
        self.after_action = (self.bet[s], self.stack[s])
        if not self.actors or self.live <= 1:
            self._end_betting()

    def _raise_to(self, s: int, to: int) -> None:
        increment = to - self.max_bet
        put = to - self.bet[s]
        self.stack[s] -= put
        self.bet[s] = to
        self.committed[s] += put
        self.pot += put
        self.max_bet = to
        order, folded, stack = self.order, self.folded, self.stack
        k = len(order)
        at = order.index(s)
        self.actors = [i for i in (order[(at + j) % k] for j in range(1, k)) if not folded[i] and stack[i]]
        if increment >= self.raise_size:  # a full raise reopens the betting
            self.acted = {s}
        self.raise_size = max(self.raise_size, increment)
        short = self.short_allins
        if stack[s]:
            short.clear()
        else:
            short.append(increment)
        if sum(short) >= self.raise_size:  # short all-ins adding up to a full raise
            short.clear()

    def _begin_betting(self) -> None:
        order, folded, stack, bet = self.order, self.folded, self.stack, self.bet
        k = len(order)
        if self.street == PREFLOP:
            # the first to act sits after the largest blind posted (ties: the
            # later position), so after a big blind that is short, the small blind's
            blind0, blind1 = (self.big_blind, self.small_blind) if k == 2 else (self.small_blind, self.big_blind)
            posted0 = bet[order[0]] if blind0 else 0
            posted1 = bet[order[1]] if blind1 else 0
            if posted1 >= posted0:
                top = k - 1 if (k > 2 and not posted1) else 1
            else:
                top = 0
            opener = (top + 1) % k
        else:
            opener = 0
        contenders = sorted(stack[i] + bet[i] for i in order if not folded[i])
        second = contenders[-2]
        # a seat acts if it has chips and someone still in could match more of them
        self.actors = [
            s for s in (order[(opener + j) % k] for j in range(k))
            if not folded[s] and stack[s] and second > bet[s]
        ]
        self.raise_size = 0
        self.acted: set[int] = set()
        self.short_allins: list[int] = []
        actors = self.actors
        if not actors or (len(actors) == 1 and bet[actors[0]] >= self.max_bet):
            self._end_betting()

    def _end_betting(self) -> None:
        n = len(self.bet)
        self.bet = [0] * n
        self.max_bet = 0
        self.actors = []
        if self.live <= 1:
            self._pay()
            return
        with_chips = sum(1 for s in self.order if not self.folded[s] and self.stack[s])
        if self.street == RIVER or with_chips <= 1:  # showdown, dealing what is left
            self.board = list(self._deck_board)
            self._pay()
            return
        self.street += 1
        self.board = list(self._deck_board[:self.street + 2])
        self._begin_betting()

    def _pay(self) -> None:
        order, folded, committed = self.order, self.folded, self.committed
        contenders = [s for s in order if not folded[s]]
        if len(contenders) > 1:
            self.values = dict(zip(contenders, evaluate_holes([self.hole[s] for s in contenders], self.board)))
        values = self.values
        if len(contenders) == 1:  # everyone else folded: no showdown, nothing to split
            (s,) = contenders
            self.stack[s] += self.pot
            self.pots = [Pot(self.pot, (s,), (s,), None)]
            self.street = OVER
            return
        levels = sorted({committed[s] for s in contenders})
        if len(levels) == 1:  # one pot: nobody still in is all-in for less
            best = max(values.values())
            winners = tuple(s for s in contenders if values[s] == best)
            share, odd = divmod(self.pot, len(winners))
            for s in winners:
                self.stack[s] += share
            self.stack[winners[0]] += odd
            self.pots = [Pot(self.pot, tuple(contenders), winners, best)]
            self.street = OVER
            return
        pots: list[Pot] = []
        below = 0
        for level in levels:
            amount = sum(min(c, level) - min(c, below) for c in committed)
            seats = tuple(s for s in contenders if committed[s] >= level)
            below = level
            if pots and pots[-1].seats == seats:
                pots[-1] = Pot(pots[-1].amount + amount, seats, (), None)
            elif amount:
                pots.append(Pot(amount, seats, (), None))
        assert sum(p.amount for p in pots) == self.pot, "chips lost between the bets and the pots"
        for i, pot in enumerate(pots):
            if len(pot.seats) == 1:
                winners, best = pot.seats, None
            else:
                best = max(values[s] for s in pot.seats)
                winners = tuple(s for s in pot.seats if values[s] == best)
            share, odd = divmod(pot.amount, len(winners))
            for s in winners:
                self.stack[s] += share
            self.stack[winners[0]] += odd  # odd chips: the first winner left of the button
            pots[i] = Pot(pot.amount, pot.seats, winners, best)
        self.pots = pots
        self.street = OVER

    # -- views ---------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.street == OVER

    def profits(self) -> list[int]:
        return [now - then for now, then in zip(self.stack, self.start)]

    def in_hand(self) -> list[int]:
        """Seats that have not folded, in seat order."""
        return sorted(s for s in self.order if not self.folded[s])
