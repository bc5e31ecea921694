"""Strategy files for the built-in opponent (pure: parsing takes text).

A strategy is the second player's behaviour, one probability distribution
per *situation*, in the seed's text format::

    <bet1> <bet2>
    ROUND1 <c1> <c2> <bets> <fold> <call> <raise>
    DRAW   <c1> <c2> <bets> <drew> <first> <draw0> <draw1> <draw2>
    ROUND2 <c1> <c2> <bets1> <bets2> <drew1> <drew2> <first> <fold> <call> <raise>

``c1 <= c2`` are the strategy's own cards, ``bets``/``bets1`` the bets of round
1 so far (at a decision) or in all (after it), ``drew``/``drew1`` what the
first player drew, ``drew2`` what the strategy drew, and ``first`` who bet
first in round 1: 0 the first player (or nobody), 1 the strategy.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from ._rules import HANDS, MAX_BETS

#: round-1 outcomes as (bets, first bettor): 0 = the first player or nobody
HISTORIES: tuple[tuple[int, int], ...] = ((0, 0), (1, 0), (2, 0), (3, 0), (1, 1), (2, 1), (3, 1))

Dist = tuple[float, float, float]
#: the situations, as the file's lines key them (see above)
Round1Key = tuple[int, int, int]
DrawKey = tuple[int, int, int, int, int]
Round2Key = tuple[int, int, int, int, int, int, int]

#: how far a line's probabilities may sum from 1 (they are then rescaled)
SUM_TOLERANCE = 1e-3


class StrategyError(ValueError):
    """A strategy file that cannot be used; the message says where and why."""


def round1_keys() -> list[Round1Key]:
    return [(lo, hi, bets) for lo, hi in HANDS for bets in range(MAX_BETS + 1)]


def draw_keys() -> list[DrawKey]:
    return [(lo, hi, b, d, f) for lo, hi in HANDS for b, f in HISTORIES for d in range(3)]


def round2_keys() -> list[Round2Key]:
    return [
        (lo, hi, b1, b2, d1, d2, f)
        for lo, hi in HANDS
        for b1, f in HISTORIES
        for b2 in range(MAX_BETS + 1)
        for d1 in range(3)
        for d2 in range(3)
    ]


@dataclass
class Strategy:
    """The second player's strategy, keyed as in the file.

    Distributions are stored as played: a fold with nothing to call is moved
    to call (a check), a raise after 3 bets to call.
    """

    bet1: int
    bet2: int
    round1: dict[Round1Key, Dist] = field(default_factory=dict)
    draw: dict[DrawKey, Dist] = field(default_factory=dict)
    round2: dict[Round2Key, Dist] = field(default_factory=dict)


def playable(dist: Dist, bets: int) -> Dist:
    """The distribution as it plays with ``bets`` bets made so far."""
    f, c, r = dist
    if bets == 0:
        c, f = c + f, 0.0
    if bets >= MAX_BETS:
        c, r = c + r, 0.0
    return (f, c, r)


def check_stakes(bet1: int, bet2: int) -> None:
    if not 1 <= bet1 <= 5:
        raise StrategyError(f"bet1 must be 1..5, got {bet1}")
    if not bet1 <= bet2 <= 3 * bet1:
        raise StrategyError(f"bet2 must be between bet1 and 3*bet1 ({bet1}..{3 * bet1}), got {bet2}")


def parse_strategy(text: str) -> Strategy:
    """Parse a strategy file's text; raise StrategyError naming the line."""
    lines = [(n, line.split()) for n, line in enumerate(text.splitlines(), 1)]
    lines = [(n, words) for n, words in lines if words]
    if not lines:
        raise StrategyError("empty strategy file: the first line must be '<bet1> <bet2>'")
    n, head = lines[0]
    try:
        if len(head) != 2:
            raise ValueError
        bet1, bet2 = int(head[0]), int(head[1])
    except ValueError:
        raise StrategyError(f"line {n}: the first line must be '<bet1> <bet2>', got {' '.join(head)!r}") from None
    try:
        check_stakes(bet1, bet2)
    except StrategyError as exc:
        raise StrategyError(f"line {n}: {exc}") from None
    strategy = Strategy(bet1, bet2)
    # kind -> (its table, its key's length, its keys): each table has keys of
    # its own length, and a line's key is checked against them before it is stored
    tables: dict[str, tuple[dict[Any, Dist], int, set[tuple[int, ...]]]] = {
        "ROUND1": (strategy.round1, 3, set(round1_keys())),
        "DRAW": (strategy.draw, 5, set(draw_keys())),
        "ROUND2": (strategy.round2, 7, set(round2_keys())),
    }
    for n, words in lines[1:]:
        kind = words[0]
        if kind not in tables:
            raise StrategyError(f"line {n}: unknown line kind {kind!r}; expected ROUND1, DRAW or ROUND2")
        table, nkey, valid = tables[kind]
        if len(words) != 1 + nkey + 3:
            raise StrategyError(f"line {n}: a {kind} line has {nkey + 3} numbers after the word, got {len(words) - 1}")
        try:
            key = tuple(int(w) for w in words[1:1 + nkey])
            probs = [float(w) for w in words[1 + nkey:]]
        except ValueError:
            raise StrategyError(f"line {n}: not a number in {' '.join(words)!r}") from None
        if key not in valid:
            raise StrategyError(f"line {n}: {kind} {' '.join(map(str, key))} is not a situation of the game")
        if key in table:
            raise StrategyError(f"line {n}: {kind} {' '.join(map(str, key))} is given twice")
        if not all(math.isfinite(p) and p >= 0 for p in probs):
            raise StrategyError(f"line {n}: probabilities must be finite and >= 0")
        total = sum(probs)
        if abs(total - 1) > SUM_TOLERANCE:
            raise StrategyError(f"line {n}: probabilities sum to {total:g}, not 1")
        dist: Dist = (probs[0] / total, probs[1] / total, probs[2] / total)  # three: the length was checked
        if kind == "ROUND1":
            dist = playable(dist, key[2])
        elif kind == "ROUND2":
            dist = playable(dist, key[3])
        table[key] = dist
    for kind, (table, _, valid) in tables.items():
        missing = valid - table.keys()
        if missing:
            first = " ".join(map(str, min(missing)))
            raise StrategyError(f"{len(missing)} {kind} situations are missing, e.g. {kind} {first}")
    return strategy


def _fmt_dist(dist: Dist, digits: int) -> str:
    # Integer units so the printed numbers sum to exactly 1; the largest takes
    # the rounding error.
    unit = 10**digits
    ints = [round(p * unit) for p in dist]
    big = max(range(3), key=lambda i: dist[i])
    ints[big] += unit - sum(ints)
    return " ".join(_fmt_unit(i, digits) for i in ints)


def _fmt_unit(value: int, digits: int) -> str:
    if value == 0:
        return "0"
    if value == 10**digits:
        return "1"
    return f"{value / 10**digits:.{digits}f}".rstrip("0")


def format_strategy(strategy: Strategy, digits: int = 6) -> str:
    """The file text of ``strategy`` (probabilities rounded to ``digits``)."""
    out = [f"{strategy.bet1} {strategy.bet2}"]
    for key1 in round1_keys():
        out.append("ROUND1 " + " ".join(map(str, key1)) + " " + _fmt_dist(strategy.round1[key1], digits))
    for key_draw in draw_keys():
        out.append("DRAW " + " ".join(map(str, key_draw)) + " " + _fmt_dist(strategy.draw[key_draw], digits))
    for key2 in round2_keys():
        out.append("ROUND2 " + " ".join(map(str, key2)) + " " + _fmt_dist(strategy.round2[key2], digits))
    return "\n".join(out) + "\n"


# -- the generator's constraints (from the seed's list) ------------------------


def allowed(kind: str, key: tuple[int, ...]) -> tuple[bool, bool, bool]:
    """Which of the three actions the generator may give a probability.

    Never fold or draw with a pair of 4s; never draw two holding a 4; never
    draw one holding a pair; always raise with a pair of 4s in round 2; never
    fold when checking is free; no raise after 3 bets.
    """
    lo, hi = key[0], key[1]
    fours = lo == hi == 4
    if kind == "DRAW":
        if fours:
            return (True, False, False)
        return (True, lo != hi, hi != 4)
    bets = key[2] if kind == "ROUND1" else key[3]
    can_raise = bets < MAX_BETS
    if kind == "ROUND2" and fours:
        return (False, not can_raise, can_raise)
    return (bets > 0 and not fours, True, can_raise)


def random_dist(mask: tuple[bool, bool, bool], rng: random.Random) -> Dist:
    """Uniform on the simplex of the allowed actions (flat Dirichlet)."""
    weights = [-math.log(1.0 - rng.random()) if ok else 0.0 for ok in mask]
    total = sum(weights)
    if total <= 0:  # every draw exactly 0: all but impossible; take the first allowed
        first = mask.index(True)
        return (float(first == 0), float(first == 1), float(first == 2))
    return (weights[0] / total, weights[1] / total, weights[2] / total)


def random_strategy(bet1: int, bet2: int, rng: random.Random) -> Strategy:
    """Every situation uniform on its constrained simplex."""
    check_stakes(bet1, bet2)
    s = Strategy(bet1, bet2)
    for key1 in round1_keys():
        s.round1[key1] = random_dist(allowed("ROUND1", key1), rng)
    for key_draw in draw_keys():
        s.draw[key_draw] = random_dist(allowed("DRAW", key_draw), rng)
    for key2 in round2_keys():
        s.round2[key2] = random_dist(allowed("ROUND2", key2), rng)
    return s


def sample(dist: Dist, rng: random.Random) -> int:
    """Index 0, 1 or 2 drawn from ``dist``."""
    u = rng.random()
    acc = 0.0
    for i, p in enumerate(dist):
        acc += p
        if u < acc:
            return i
    return max(i for i in range(3) if dist[i] > 0)  # rounding left u above the sum
