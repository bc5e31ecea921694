"""Rules engine for TwoCardDraw (pure: no I/O, no clock, no global RNG).

Positions, not seats: position 0 ("first") acts first in both betting rounds
and draws first; position 1 ("second") answers. The protocol layer maps
positions to seats. Chance is explicit: the caller deals the cards and hands
over the replacement cards of a draw.
"""

from __future__ import annotations

from dataclasses import dataclass

from games._base import IllegalAction

RANKS = 5  # cards are 0..4, each drawn independently (with replacement)
MAX_BETS = 3  # bets + raises allowed in one betting round
ANTE = 1

#: every two-card hand, as (low, high); a pair is (x, x)
HANDS: tuple[tuple[int, int], ...] = tuple((lo, hi) for lo in range(RANKS) for hi in range(lo, RANKS))
HAND_INDEX = {h: i for i, h in enumerate(HANDS)}

ACTIONS = ("check", "bet", "fold", "call", "raise")
OPEN_OPTIONS = ("check", "bet")  # nothing to call
FACING_OPTIONS = ("fold", "call", "raise")  # a bet to call


def sort_hand(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a <= b else (b, a)


def hand_key(hand: tuple[int, int]) -> tuple[int, int, int]:
    """A key that orders hands by strength: any pair beats any non-pair,
    pairs by rank, non-pairs by the high card then the low card."""
    lo, hi = sort_hand(*hand)
    return (1, lo, lo) if lo == hi else (0, hi, lo)


def compare(a: tuple[int, int], b: tuple[int, int]) -> int:
    """+1 if hand ``a`` wins, -1 if ``b`` wins, 0 for a tie (split pot)."""
    ka, kb = hand_key(a), hand_key(b)
    return (ka > kb) - (ka < kb)


def options(bets: int) -> tuple[str, ...]:
    """The legal actions when ``bets`` bets have been made this round."""
    if bets == 0:
        return OPEN_OPTIONS
    return FACING_OPTIONS if bets < MAX_BETS else ("fold", "call")


def normalize_action(action: str, bets: int) -> str:
    """Check ``action`` against the rules; a fold with nothing to call is a check.

    Raises IllegalAction with a sentence saying why.
    """
    if action not in ACTIONS:
        raise IllegalAction(f"{action!r} is not an action; use one of {', '.join(ACTIONS)}")
    if bets == 0:
        if action == "fold":
            return "check"  # folding when checking is free counts as a check
        if action in ("call", "raise"):
            raise IllegalAction(f"there is no bet to {action}: check or bet")
        return action
    if action in ("check", "bet"):
        word = "call" if action == "check" else "raise"
        raise IllegalAction(f"there is a bet to answer ({bets} so far): fold, call or {word}")
    if action == "raise" and bets >= MAX_BETS:
        raise IllegalAction(f"no raise after {MAX_BETS} bets in a round: fold or call")
    return action


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended, from the positions' point of view."""

    profit: tuple[int, int]  # per position; zero-sum
    folded: int | None  # the position that folded, if any
    showdown: bool
    final: tuple[tuple[int, int], tuple[int, int]]  # each position's last hand
    bets1: int
    bets2: int | None


class Hand:
    """One hand between two positions.

    Phases: ``round1`` -> ``draw`` -> ``round2`` -> ``over``. ``to_act`` is the
    position to act (bet or draw). The bet size is ``bet1`` in round 1 and
    ``bet2`` in round 2.
    """

    __slots__ = (
        "bet1", "bet2", "cards", "phase", "to_act", "bets", "bets1", "bets2",
        "first_bettor", "first_bettor2", "drew", "put", "result", "history",
    )

    def __init__(self, bet1: int, bet2: int, cards: tuple[tuple[int, int], tuple[int, int]]) -> None:
        for hand in cards:
            if len(hand) != 2 or not all(isinstance(c, int) and 0 <= c < RANKS for c in hand):
                raise ValueError(f"a hand is two cards 0..{RANKS - 1}, got {hand!r}")
        self.bet1, self.bet2 = bet1, bet2
        self.cards = [sort_hand(*cards[0]), sort_hand(*cards[1])]
        self.phase = "round1"
        self.to_act = 0
        self.bets = 0  # in the current betting round
        self.bets1 = 0
        self.bets2: int | None = None
        self.first_bettor: int | None = None  # who bet first in round 1
        self.first_bettor2: int | None = None
        self.drew: list[int | None] = [None, None]
        self.put = [ANTE, ANTE]  # what each position has in the pot
        self.result: HandResult | None = None
        self.history: list[tuple[int, str]] = []  # (position, action or "draw N")

    # -- views ------------------------------------------------------------

    def options(self) -> tuple[str, ...]:
        if self.phase not in ("round1", "round2"):
            return ()
        return options(self.bets)

    def bet_size(self) -> int:
        return self.bet1 if self.phase == "round1" else self.bet2

    # -- betting ----------------------------------------------------------

    def act(self, position: int, action: str) -> str:
        """Apply a betting action; return it as applied (fold may become check)."""
        if self.phase not in ("round1", "round2"):
            raise IllegalAction(f"no betting now: the hand is in phase {self.phase}")
        if position != self.to_act:
            raise IllegalAction(f"it is the {'first' if self.to_act == 0 else 'second'} player's turn")
        action = normalize_action(action, self.bets)
        size = self.bet_size()
        other = 1 - position
        self.history.append((position, action))
        if action in ("bet", "raise"):
            self.bets += 1
            # put the opponent's level plus one more bet in
            self.put[position] = self.put[other] + size
            if self.phase == "round1" and self.first_bettor is None:
                self.first_bettor = position
            if self.phase == "round2" and self.first_bettor2 is None:
                self.first_bettor2 = position
            self.to_act = other
        elif action == "fold":
            self._finish(folded=position)
        elif action == "call":
            self.put[position] = self.put[other]
            self._end_round()
        else:  # check
            if position == 1:  # check behind: the round is over
                self._end_round()
            else:
                self.to_act = other
        return action

    def _end_round(self) -> None:
        if self.phase == "round1":
            self.bets1 = self.bets
            self.phase = "draw"
            self.to_act = 0
        else:
            self.bets2 = self.bets
            self._finish(folded=None)
        self.bets = 0

    # -- the draw -----------------------------------------------------------

    def draw(self, position: int, count: int, new_cards: tuple[int, ...] | list[int]) -> tuple[int, int]:
        """Exchange ``count`` cards; ``new_cards`` are the ``count`` cards dealt
        (chance, supplied by the caller). Drawing one replaces the lower card.
        Returns the new hand."""
        if self.phase != "draw":
            raise IllegalAction(f"no drawing now: the hand is in phase {self.phase}")
        if position != self.to_act:
            raise IllegalAction(f"it is the {'first' if self.to_act == 0 else 'second'} player's turn to draw")
        if isinstance(count, bool) or count not in (0, 1, 2):
            raise IllegalAction(f"a player draws 0, 1 or 2 cards, not {count!r}")
        if len(new_cards) != count or not all(0 <= c < RANKS for c in new_cards):
            raise ValueError(f"drawing {count} needs {count} new cards 0..{RANKS - 1}, got {new_cards!r}")
        lo, hi = self.cards[position]
        if count == 1:
            self.cards[position] = sort_hand(hi, new_cards[0])
        elif count == 2:
            self.cards[position] = sort_hand(new_cards[0], new_cards[1])
        self.drew[position] = count
        self.history.append((position, f"draw {count}"))
        if position == 0:
            self.to_act = 1
        else:
            self.phase = "round2"
            self.to_act = 0
        return self.cards[position]

    # -- the end ------------------------------------------------------------

    def _finish(self, folded: int | None) -> None:
        if folded is not None:
            winner = 1 - folded
            # the folder loses what it has in; the bet it did not call goes back
            won = self.put[folded]
            profit = [0, 0]
            profit[winner], profit[folded] = won, -won
            showdown = False
            if self.phase == "round1":
                self.bets1 = self.bets
            else:
                self.bets2 = self.bets
        else:
            assert self.put[0] == self.put[1]
            sign = compare(self.cards[0], self.cards[1])
            profit = [sign * self.put[0], -sign * self.put[0]]
            showdown = True
        self.result = HandResult(
            profit=(profit[0], profit[1]),
            folded=folded,
            showdown=showdown,
            final=(self.cards[0], self.cards[1]),
            bets1=self.bets1,
            bets2=self.bets2,
        )
        self.phase = "over"
        self.to_act = -1
