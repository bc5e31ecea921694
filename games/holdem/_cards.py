"""Cards as small integers, their two-character names, and hand values from eval7.

A card is ``rank * 4 + suit``: rank 0..12 for 2..A, suit 0..3 for c, d, h, s.
Hand strength comes from eval7 (a C evaluator); this module only names cards
and puts eval7's value into words.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK_SIZE = 52

#: card number -> name ("Ah"), and back
NAMES = [RANKS[c >> 2] + SUITS[c & 3] for c in range(DECK_SIZE)]
NUMBERS = {name: c for c, name in enumerate(NAMES)}
#: eval7's cards by our number, and eval7.evaluate: loaded by ``load_evaluator``
#: (a hold'em match does it as it is set up) or at the first showdown, not at
#: import, since importing eval7 (and the pyparsing its range parser uses)
#: costs 50 to 100 ms, which every ``arena`` command would pay
_EVAL7: list = []
_evaluate = None


def load_evaluator() -> None:
    """Import the hand evaluator now (once), rather than at the first showdown:
    a match that loads it there stalls for the import between two messages."""
    if _evaluate is None:
        _load_eval7()


def _load_eval7():
    global _evaluate
    with warnings.catch_warnings():
        # eval7's hand-range parser calls pyparsing names deprecated since 3.1
        warnings.simplefilter("ignore", DeprecationWarning)
        import eval7
    _EVAL7[:] = [eval7.Card(name) for name in NAMES]
    _evaluate = eval7.evaluate
    return _evaluate


# eval7's value: the category in bits 24+, then the ranks that decide within
# it, one per 4 bits from bit 16 down (most significant first).
_WORD = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "jack", "queen", "king", "ace")
_PLURAL = ("twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
           "jacks", "queens", "kings", "aces")


def card_names(cards: Iterable[int]) -> list[str]:
    return [NAMES[c] for c in cards]


def parse_cards(text: str | Sequence[str]) -> list[int]:
    """``"AhKd"`` or ``["Ah", "Kd"]`` -> card numbers; ValueError names a bad card."""
    names = [text[i:i + 2] for i in range(0, len(text), 2)] if isinstance(text, str) else list(text)
    try:
        return [NUMBERS[n] for n in names]
    except KeyError as exc:
        raise ValueError(f"{exc.args[0]!r} is not a card (rank 2-9, T, J, Q, K, A then suit c, d, h, s)") from None


def evaluate(cards: Iterable[int]) -> int:
    """The value of the best five of these cards (5 to 7): higher is better."""
    return (_evaluate or _load_eval7())([_EVAL7[c] for c in cards])


def evaluate_holes(holes: Iterable[Sequence[int]], board: Sequence[int]) -> list[int]:
    """The value of each hole pair with the board (a showdown's values)."""
    evaluate = _evaluate or _load_eval7()
    cards = _EVAL7
    shared = [cards[c] for c in board]
    return [evaluate([cards[a], cards[b], *shared]) for a, b in holes]


def evaluate_runouts(holes: Sequence[Sequence[int]], board: Sequence[int],
                     runouts: Iterable[Sequence[int]]) -> list[list[int]]:
    """For each way the board may end (``board`` plus a runout), each hole pair's value."""
    evaluate = _evaluate or _load_eval7()
    cards = _EVAL7
    pairs = [[cards[a], cards[b]] for a, b in holes]
    shared = [cards[c] for c in board]
    out = []
    for runout in runouts:
        full = shared + [cards[c] for c in runout]
        out.append([evaluate(pair + full) for pair in pairs])
    return out


def describe(value: int) -> str:
    """An eval7 value in words: ``"two pair, kings and nines"``."""
    cat = value >> 24
    ranks = [(value >> shift) & 15 for shift in (16, 12, 8, 4, 0)]
    top, second = ranks[0], ranks[1]
    if cat == 0:
        return f"high card, {_WORD[top]}"
    if cat == 1:
        return f"a pair of {_PLURAL[top]}"
    if cat == 2:
        return f"two pair, {_PLURAL[top]} and {_PLURAL[second]}"
    if cat == 3:
        return f"three {_PLURAL[top]}"
    if cat == 4:
        return f"a straight, {_WORD[top]} high"
    if cat == 5:
        return f"a flush, {_WORD[top]} high"
    if cat == 6:
        return f"a full house, {_PLURAL[top]} full of {_PLURAL[second]}"
    if cat == 7:
        return f"four {_PLURAL[top]}"
    return "a royal flush" if top == 12 else f"a straight flush, {_WORD[top]} high"
