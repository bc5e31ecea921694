"""Rules engine for the RPS card draft (pure: no I/O, no clock, no global RNG).

A match is a state machine over two seats. Chance is an explicit step: while
``match.phase`` is a chance phase the caller supplies the outcome (an order of
the cards, from a seeded RNG or rigged by a test) through ``apply_chance``.
Both seats act at the same time in every decision step, so the engine takes a
pair of indices; ``check_index`` lets the caller name the offending seat first.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from games._base import IllegalAction

from ._params import RpsDraftParams

SEATS = 2
SYMBOLS = ("R", "P", "S")
#: The 30 distinct cards: symbol then number, e.g. "R0", "S9".
FULL_DECK: tuple[str, ...] = tuple(f"{s}{n}" for s in SYMBOLS for n in range(10))
_CARDS = frozenset(FULL_DECK)
#: symbol -> the symbol it beats
_BEATS = {"R": "S", "S": "P", "P": "R"}


class Phase(Enum):
    SHUFFLE = "shuffle"  # chance: the order of the full deck
    DRAFT = "draft"  # both seats pick one of their two offered cards
    DEAL = "deal"  # chance: the orders of the three decks for the main phase
    PLAY = "play"  # both seats play a card from their hand
    OVER = "over"




def beats(mine: str, theirs: str, base: str) -> bool:
    """True if ``mine`` wins against ``theirs`` when both are combined with ``base``.

    A pair with the base beats no pair; otherwise the higher number wins;
    with equal numbers rock beats scissors, scissors paper, paper rock.
    """
    mine_pair = mine[1] == base[1]
    if mine_pair != (theirs[1] == base[1]):
        return mine_pair
    if mine[1] != theirs[1]:
        return mine[1] > theirs[1]  # one digit each: string order is number order
    if mine[0] == theirs[0]:
        raise ValueError(f"{mine} and {theirs} are the same card")
    return _BEATS[mine[0]] == theirs[0]


@dataclass(frozen=True, slots=True)
class TurnResult:
    turn: int
    base: str
    played: tuple[str, str]  # per seat
    winner: int


class RpsDraftMatch:
    """One match: the draft of ``draft_rounds`` rounds, then ``turns`` turns."""

    __slots__ = (
        "params",
        "phase",
        "order",
        "draft_round",
        "offers",
        "decks",
        "remaining",
        "draws",
        "hands",
        "turn",
        "base",
        "won",
        "last_draft",
        "last_turn",
    )

    def __init__(self, params: RpsDraftParams) -> None:
        self.params = params
        self.phase = Phase.SHUFFLE
        self.order: tuple[str, ...] = ()
        self.draft_round = 0
        self.offers: list[tuple[str, str]] = [("", ""), ("", "")]
        self.decks: list[list[str]] = [[], []]  # each seat's 2 * draft_rounds cards
        self.remaining: list[str] = []  # undrafted cards; the bases come from here
        self.draws: list[list[str]] = [[], []]  # what each seat has left to draw
        self.hands: list[list[str]] = [[], []]
        self.turn = 0
        self.base = ""
        self.won = [0, 0]
        #: per seat: the card the opponent left, which this seat receives
        self.last_draft: tuple[str, str] | None = None
        self.last_turn: TurnResult | None = None

    # -- chance ---------------------------------------------------------------

    def apply_chance(self, outcome) -> None:
        """SHUFFLE: an order of all 30 cards (top first). DEAL: three orders
        (seat 0's deck, seat 1's deck, the remaining cards), top first."""
        if self.phase is Phase.SHUFFLE:
            order = tuple(outcome)
            if len(order) != len(FULL_DECK) or set(order) != _CARDS:
                raise ValueError("the shuffle must be an order of the 30 cards")
            self.order = order
            self.phase = Phase.DRAFT
            self._offer()
        elif self.phase is Phase.DEAL:
            deck0, deck1, rest = (list(x) for x in outcome)
            for got, want in ((deck0, self.decks[0]), (deck1, self.decks[1]), (rest, self.remaining)):
                if sorted(got) != sorted(want):
                    raise ValueError("the deal must reorder each deck, not change it")
            size = self.params.hand_size
            self.decks = [deck0, deck1]
            self.remaining = rest
            self.hands = [deck0[:size], deck1[:size]]
            self.draws = [deck0[size:], deck1[size:]]
            self.phase = Phase.PLAY
            self.base = self.remaining[0]
        else:
            raise ValueError(f"no chance step in phase {self.phase.value}")

    def _offer(self) -> None:
        # Seat 0 takes the next two cards from the top, seat 1 the two after.
        at = 4 * self.draft_round
        o = self.order
        self.offers = [(o[at], o[at + 1]), (o[at + 2], o[at + 3])]

    # -- decisions ------------------------------------------------------------

    def options(self, seat: int) -> list[str]:
        """What ``seat`` chooses from now: its two offered cards, or its hand."""
        if self.phase is Phase.DRAFT:
            return list(self.offers[seat])
        if self.phase is Phase.PLAY:
            return list(self.hands[seat])
        raise ValueError(f"nobody chooses in phase {self.phase.value}")

    def check_index(self, seat: int, index: object) -> int:
        """The index if ``seat`` may choose it now; IllegalAction otherwise."""
        n = len(self.options(seat))
        what = "the two offered cards" if self.phase is Phase.DRAFT else f"a hand of {n}"
        if isinstance(index, bool) or not isinstance(index, int):
            raise IllegalAction(f"the index must be an integer from 0 to {n - 1} into {what}, got {index!r}")
        if not 0 <= index < n:
            raise IllegalAction(f"index {index} is outside {what} (0 to {n - 1})")
        return index

    def apply(self, indices: tuple[object, object]) -> None:
        """Both seats' choices for the current draft round or turn."""
        picks = [self.check_index(seat, indices[seat]) for seat in range(SEATS)]
        if self.phase is Phase.DRAFT:
            self._draft(picks)
        else:
            self._play(picks)

    def _draft(self, picks: list[int]) -> None:
        left = [self.offers[s][1 - picks[s]] for s in range(SEATS)]
        for s in range(SEATS):
            self.decks[s].append(self.offers[s][picks[s]])
            self.decks[s].append(left[1 - s])  # the card the opponent did not take
        self.last_draft = (left[1], left[0])  # what each seat receives
        self.draft_round += 1
        if self.draft_round < self.params.draft_rounds:
            self._offer()
        else:
            self.remaining = list(self.order[4 * self.draft_round:])
            self.offers = [("", ""), ("", "")]
            self.phase = Phase.DEAL

    def _play(self, picks: list[int]) -> None:
        played = (self.hands[0].pop(picks[0]), self.hands[1].pop(picks[1]))
        winner = 0 if beats(played[0], played[1], self.base) else 1
        self.won[winner] += 1
        self.last_turn = TurnResult(self.turn, self.base, played, winner)
        for s in range(SEATS):
            if self.draws[s]:  # the new card goes to the end of the hand
                self.hands[s].append(self.draws[s].pop(0))
        self.turn += 1
        if self.turn < self.params.turns:
            self.base = self.remaining[self.turn]
        else:
            self.base = ""
            self.phase = Phase.OVER
