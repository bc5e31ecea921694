"""Exact best response to a strategy, and the seed's hill-climb generator.

Pure and deterministic. Arithmetic is in floats (double precision), by exact
enumeration of every chance outcome and every information set: no sampling.

The strategy plays second. The best response (the first player) knows it.
Cards are dealt independently, so what the first player believes about the
strategy's cards depends only on the public actions, and its best action in
round 2 depends on its cards then, not on those it held before the draw.

Every value below is *unnormalised*: a sum over the strategy's hands of
(chance x the strategy's action probabilities x payoff). Summed over the
first player's hands weighted by their chance, it is the expected profit
per hand of the best response.

Vectorised with numpy: one array operation covers all 15 hands and all 63
round-2 contexts (round-1 history x both draws) at once; a change of one
situation (the hill-climb) recomputes only the contexts it touches. Every
float operation is one that the plain-Python evaluator this replaced does
(``_reference``, kept for the tests), on the same operands, and sums add
left to right (``_seqsum``), never through ``np.sum`` or ``@``, which
regroup. So the values are the same to the last bit, and the hill-climb,
which keeps a change only if the value is strictly lower, takes the same
path and writes the same file for a seed. (Python 3.12's ``sum()``
compensates rounding, so there the reference itself differs in the last
bits; this module gives the same bits on every Python.)
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np

from ._rules import HAND_INDEX, HANDS, RANKS, compare, hand_key
from ._strategy import HISTORIES, Strategy, allowed, draw_keys, random_dist, random_strategy, round1_keys, round2_keys

N = len(HANDS)
_H = range(N)
HIST_INDEX = {h: i for i, h in enumerate(HISTORIES)}

#: chance of each sorted hand when both cards are uniform and independent
PRIOR = [(1 if lo == hi else 2) / RANKS**2 for lo, hi in HANDS]


def _transitions() -> list[list[list[tuple[int, float]]]]:
    """TRANS[h][d]: the hands after drawing d cards from h, with chances."""
    out = []
    for lo, hi in HANDS:
        by_draw = [[(HAND_INDEX[(lo, hi)], 1.0)]]
        one: dict[int, float] = {}
        for c in range(RANKS):  # the lower card goes, the higher stays
            h = HAND_INDEX[(min(hi, c), max(hi, c))]
            one[h] = one.get(h, 0.0) + 1 / RANKS
        by_draw.append(sorted(one.items()))
        by_draw.append([(h, PRIOR[h]) for h in _H])
        out.append(by_draw)
    return out


TRANS = _transitions()
#: hands from weakest to strongest (no two hands tie)
ORDER = sorted(_H, key=lambda h: hand_key(HANDS[h]))
assert all(compare(HANDS[a], HANDS[b]) < 0 for a, b in zip(ORDER, ORDER[1:]))

#: the bets made in a betting round that ends as HISTORIES[i]
_TERMINAL_BETS = tuple(b for b, _ in HISTORIES)

Choose = Callable[[list[float]], tuple[float, int]]


def best(values: list[float]) -> tuple[float, int]:
    i = max(range(len(values)), key=values.__getitem__)
    return values[i], i


class _Noisy:
    """See ``noisy``; a class so that the Evaluator can read ``eps``."""

    def __init__(self, eps: float) -> None:
        self.eps = eps

    def __call__(self, values: list[float]) -> tuple[float, int]:
        v, i = best(values)
        rest = sum(values) - v
        return (1 - self.eps * (len(values) - 1)) * v + self.eps * rest, i


def noisy(eps: float) -> Choose:
    """An opponent that plays its best action except, for each other action,
    a fraction ``eps`` of the time (the seed's 'almost perfect' opponent)."""
    return _Noisy(eps)


# -- the tables as arrays ----------------------------------------------------------
#
# Hands are the first axis of every array, so that a sum over hands is 14
# additions of contiguous slices (np.add.accumulate, also left to right, is
# several times slower on these small arrays); the round-1 history r is the
# last, so that broadcasting loops run over more than 3 numbers at a time.

_PRIOR = np.array(PRIOR)
#: _P[s, t, d]: the chance that hand s becomes t when d cards are drawn. Dense:
#: the zeros add exact zeros to the running sums, which leaves them unchanged.
_P = np.zeros((N, N, 3))
for _s in _H:
    for _d in range(3):
        for _t, _p in TRANS[_s][_d]:
            _P[_s, _t, _d] = _p
_P_BY_TARGET = np.ascontiguousarray(_P.transpose(1, 0, 2))  # [t, b, d]: from b to t
_ORDER = np.array(ORDER)
_RANK = np.argsort(_ORDER)  # where each hand is in ORDER
_TB = np.array(_TERMINAL_BETS, dtype=float)

_KEYS1, _KEYS_DRAW, _KEYS2 = round1_keys(), draw_keys(), round2_keys()
_GET1, _GET_DRAW, _GET2 = itemgetter(*_KEYS1), itemgetter(*_KEYS_DRAW), itemgetter(*_KEYS2)


def _table(table: dict, keys: list, getter: Callable, shape: tuple[int, ...], axes: tuple[int, ...]) -> np.ndarray:
    """One of a strategy's tables as a float array: the keys in file order
    give ``shape`` (the distribution last), then the axes go in ``axes`` order."""
    # Parsed canonical files and generated strategies list their situations in
    # file order already; reading values() then saves hashing 3,780 tuples.
    values = table.values() if len(table) == len(keys) and list(table) == keys else getter(table)
    # struct is the quickest way here from 11,340 Python floats to an array
    flat = struct.pack(f"{3 * len(keys)}d", *chain.from_iterable(values))
    return np.frombuffer(flat).reshape(shape).transpose(axes).copy()  # a copy: writable, C order


def _seqsum(x: np.ndarray) -> np.ndarray:
    """Sum over the first axis, left to right as Python's sum() does."""
    acc = x[0] + x[1]
    for i in range(2, len(x)):
        np.add(acc, x[i], out=acc)
    return acc


# -- the layers, on arrays -------------------------------------------------------


def _choose(eps: float, values: list, record: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """``best`` (eps 0) or ``noisy(eps)``, elementwise; the first of equal
    values wins, as with max()."""
    v = values[0]
    i: np.ndarray | None = np.zeros(np.broadcast_shapes(*map(np.shape, values)), dtype=np.intp) if record else None
    for j, x in enumerate(values[1:], 1):
        take = x > v
        v = np.where(take, x, v)
        if i is not None:  # recording
            i = np.where(take, j, i)
    if eps:
        total = values[0]
        for x in values[1:]:
            total = total + x
        v = (1 - eps * (len(values) - 1)) * v + eps * (total - v)
    return v, i


def _vectors(w: np.ndarray, sig: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The strategy's weight vectors at the ends of a betting round.

    ``w[s, ...]`` is the weight of each of its hands entering the round,
    ``sig[k, a, s, ...]`` its chance of action a with k bets made. Returns
    ``ends[s, i, ...]``, the weights of the 7 ways the round can end with a
    call (i in HISTORIES order), and their 7 sums followed by 3 fold sums:
    strategy folds to a bet, to a 3rd bet (after bet-raise-raise), to a
    re-raise (check-bet-raise).
    """
    u1 = w * sig[0, 2]  # check, strategy bets
    v2 = w * sig[1, 2]  # bet, strategy raises
    parts = np.stack([w * sig[0, 1], w * sig[1, 1], v2, v2 * sig[3, 1], u1, u1 * sig[2, 1], u1 * sig[2, 2],
                      w * sig[1, 0], v2 * sig[3, 0], u1 * sig[2, 0]], axis=1)
    return parts[:, :7], _seqsum(parts)


def _folds(sums: np.ndarray) -> tuple:
    """What ``_tree`` needs of ``_vectors``' sums: the 3 fold sums, then the
    first player's facing 1 bet after checking, 3 bets, 2 bets."""
    return sums[7], sums[8], sums[9], sums[4], sums[6], sums[2]


def _tree(eps: float, base, size: int, sd, folds: tuple, record: bool = False):
    """The first player's value of a betting round it opens, for each hand.

    ``sd[i]`` is the value of the round ending in HISTORIES[i] (a call),
    ``base`` what each player has in the pot when the round starts. A player
    who folds loses what it has in; the bet it did not call is not lost.
    With ``record``, also its actions: indices into check/bet,
    fold/call/raise (twice) and fold/call.
    """
    f1, f3, f2, su1, su3, sv2 = folds
    b3, a3 = _choose(eps, [-(base + 2 * size) * su3, sd[6]], record)  # check-bet-raise-raise: fold/call
    s2 = (base + size) * f2 + sd[5] + b3
    b1, a1 = _choose(eps, [-base * su1, sd[4], s2], record)  # check-bet: fold/call/raise
    check = sd[0] + b1
    s3 = (base + 2 * size) * f3 + sd[3]
    b2, a2 = _choose(eps, [-(base + size) * sv2, sd[2], s3], record)  # bet-raise: fold/call/raise
    bet = base * f1 + sd[1] + b2
    root, a0 = _choose(eps, [check, bet], record)
    return root, (a0, a1, a2, a3)


def _showdown_values(ends: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """For each of the first player's hands b: sum over s of vec[s] * compare(b, s),
    for every vector ``ends[:, ...]`` (whose sums are ``totals``)."""
    ranked = ends.take(_ORDER, axis=0)
    below = np.empty_like(ranked)  # the weight of the weaker hands
    below[0] = 0.0
    for i in range(1, N):
        np.add(below[i - 1], ranked[i - 1], out=below[i])
    return (2 * below + ranked - totals).take(_RANK, axis=0)


def _contexts(eps: float, w: np.ndarray, sig: np.ndarray, base: np.ndarray, size: int, record: bool = False):
    """Round-2 value ``[b, c]`` of each of the first player's hands b after the
    draw, for a batch of contexts c: the strategy's weights ``w[s, c]`` and
    distributions ``sig[k, a, s, c]``, the pot ``base[c]`` entering the round."""
    ends, sums = _vectors(w, sig)
    pots = base + _TB[:, None] * size  # [i, c]
    sd = pots * _showdown_values(ends, sums[:7])  # [b, i, c]
    return _tree(eps, base, size, np.moveaxis(sd, 1, 0), _folds(sums), record)


def _draw_in(w: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """The strategy's weights ``[t, d2, ...]`` after it drew d2 = 0, 1, 2 cards,
    from its weights ``w[s, ...]`` (broadcast against ``dist[s, 0]``) and its
    draw distributions ``dist[s, d2, ...]``."""
    m = w[:, None] * dist
    trans = _P.reshape(N, N, 3, *(1,) * (m.ndim - 2))
    return _seqsum(m[:, None] * trans)


def _draw_values(eps: float, ds: np.ndarray, record: bool = False):
    """For each hand b the first player holds before the draw: the value
    ``[b, ...]`` of its best draw, from ``ds[t, d, ...]``, what holding t after
    drawing d is worth (the strategy's draw and round 2 included)."""
    trans = _P_BY_TARGET.reshape(N, N, 3, *(1,) * (ds.ndim - 2))
    vals = _seqsum(trans * ds[:, None])  # [b, d, ...]
    return _choose(eps, [vals[:, 0], vals[:, 1], vals[:, 2]], record)


class Evaluator:
    """The value of the best response to a strategy, kept up to date when one
    situation changes (the hill-climb changes one at a time).

    ``choose`` is ``best`` or ``noisy(eps)``.
    """

    def __init__(self, strategy: Strategy, choose: Choose = best) -> None:
        if choose is best:
            self.eps = 0.0
        elif isinstance(choose, _Noisy):
            self.eps = choose.eps
        else:
            raise TypeError("choose must be best or noisy(eps)")
        self.choose = choose
        self.bet1, self.bet2 = strategy.bet1, strategy.bet2
        # r: round-1 history, d1/d2: cards the first player/the strategy drew
        self.r1 = _table(strategy.round1, _KEYS1, _GET1, (N, 4, 3), (1, 2, 0))  # [k, a, s]
        self.dr = _table(strategy.draw, _KEYS_DRAW, _GET_DRAW, (N, 7, 3, 3), (0, 3, 2, 1))  # [s, d2, d1, r]
        # [k, a, s, d2, d1, r]
        self.r2 = _table(strategy.round2, _KEYS2, _GET2, (N, 7, 4, 3, 3, 3), (2, 5, 0, 4, 3, 1))
        #: what each player has in the pot when round 2 starts, [d2, d1, r]
        self.base2 = np.ascontiguousarray(np.broadcast_to(1 + _TB * self.bet1, (3, 3, 7)))
        self.full()

    # -- the layers, bottom up ----------------------------------------------

    def _contexts(self, d2, d1, r, record: bool = False):
        """Round-2 values ``[b, ...]`` of the contexts ``[d2, d1, r]`` (indices
        or slices)."""
        w = self.ctx_in[:, d2, d1, r]
        flat = w.reshape(N, -1)
        v, acts = _contexts(self.eps, flat, self.r2[:, :, :, d2, d1, r].reshape(4, 3, N, flat.shape[1]),
                            self.base2[d2, d1, r].reshape(-1), self.bet2, record)
        return v.reshape(w.shape), acts

    def _round1(self, record: bool = False):
        v, acts = _tree(self.eps, 1, self.bet1, self.dv.T, self.r1_folds, record)
        total = 0.0
        for x in (_PRIOR * v).tolist():  # in Python: 15 additions
            total += x
        return total, acts

    def full(self) -> float:
        ends, sums = _vectors(_PRIOR, self.r1)
        self.r1_ends, self.r1_folds = ends, _folds(sums)  # [s, r]
        self.ctx_in = _draw_in(ends[:, None, :], self.dr)  # [t, d2, d1, r]; ends[s, r]
        every = slice(None)
        self.ctx_val = self._contexts(every, every, every)[0]  # [b, d2, d1, r]
        c = self.ctx_val
        self.ds = (c[:, 0] + c[:, 1]) + c[:, 2]  # [t, d1, r]
        self.dv = _draw_values(self.eps, self.ds)[0]  # [b, r]
        self.value = self._round1()[0]
        return self.value

    # -- one situation changes ------------------------------------------------

    def try_change(self, kind: str, key: tuple[int, ...], dist: tuple[float, float, float]) -> float:
        """Play ``dist`` in situation ``key`` and return the best response's
        new value; ``reject()`` puts the old distribution back."""
        s = HAND_INDEX[(key[0], key[1])]
        if kind == "ROUND1":
            k = key[2]
            old = self.r1[k, :, s].copy()
            saved: tuple = (self.r1_ends, self.r1_folds, self.ctx_in, self.ctx_val, self.ds, self.dv, self.value)
            self.r1[k, :, s] = dist

            def undo_all() -> None:
                self.r1[k, :, s] = old
                (self.r1_ends, self.r1_folds, self.ctx_in, self.ctx_val, self.ds, self.dv, self.value) = saved

            self._undo = undo_all
            return self.full()  # builds new arrays: the saved ones stay as they were
        if kind == "DRAW":
            b, d1, f = key[2], key[3], key[4]
            r = HIST_INDEX[(b, f)]
            cell: tuple[int | slice, ...] = (s, slice(None), d1, r)
            table = self.dr
            d2 = slice(None)
        else:
            b, k, d1, d2_, f = key[2:7]
            r = HIST_INDEX[(b, f)]
            cell = (k, slice(None), s, d2_, d1, r)
            table = self.r2
            d2 = slice(d2_, d2_ + 1)  # a slice keeps the context axis
        old = table[cell].copy()
        saved_in = self.ctx_in[:, :, d1, r].copy()
        saved_ctx = self.ctx_val[:, :, d1, r].copy()
        saved_ds, saved_dv, saved_value = self.ds[:, d1, r].copy(), self.dv[:, r].copy(), self.value
        table[cell] = dist
        if kind == "DRAW":
            self.ctx_in[:, :, d1, r] = _draw_in(self.r1_ends[:, r], self.dr[:, :, d1, r])
        self.ctx_val[:, d2, d1, r] = self._contexts(d2, d1, r)[0]
        c = self.ctx_val[:, :, d1, r]
        self.ds[:, d1, r] = (c[:, 0] + c[:, 1]) + c[:, 2]
        self.dv[:, r] = _draw_values(self.eps, self.ds[:, :, r])[0]
        self.value = self._round1()[0]

        def undo() -> None:
            table[cell] = old
            self.ctx_in[:, :, d1, r] = saved_in
            self.ctx_val[:, :, d1, r] = saved_ctx
            self.ds[:, d1, r], self.dv[:, r] = saved_ds, saved_dv
            self.value = saved_value

        self._undo = undo
        return self.value

    def reject(self) -> None:
        """Undo the last try_change."""
        self._undo()


# -- public functions ------------------------------------------------------------


def best_response_profit(strategy: Strategy) -> float:
    """What a perfect opponent earns per hand against ``strategy`` (exact)."""
    return Evaluator(strategy).value


def strategy_value(strategy: Strategy) -> float:
    """The seed's value of a strategy: minus what a perfect opponent earns per hand."""
    return -best_response_profit(strategy)


_OPEN, _FACE, _FACE3 = ("check", "bet"), ("fold", "call", "raise"), ("fold", "call")


def best_response_policy(strategy: Strategy) -> dict:
    """The best response's action in every information set of the first player.

    Keys: ``("open", b0)``/``("face1", b0, bets)`` -> action in round 1;
    ``("draw", b0, bets1, first)`` -> cards to draw;
    ``("open2", bets1, first, drew, opp_drew, b1)``/``("face2", ..., b1, bets2)``
    -> action in round 2. Hands are (low, high) tuples.
    """
    ev = Evaluator(strategy)
    names = (_OPEN, _FACE, _FACE, _FACE3)
    every = slice(None)
    acts2 = [a.reshape(N, 3, 3, 7).tolist() for a in ev._contexts(every, every, every, True)[1]]  # [h][d2][d1][r]
    draws = _draw_values(ev.eps, ev.ds, True)[1].tolist()  # [h][r]
    acts1 = [a.tolist() for a in ev._round1(True)[1]]  # [h]
    policy: dict = {}
    for r, (b, f) in enumerate(HISTORIES):
        for d1 in range(3):
            for d2 in range(3):
                for h in _H:
                    policy[("open2", b, f, d1, d2, HANDS[h])] = _OPEN[acts2[0][h][d2][d1][r]]
                    for k in (1, 2, 3):
                        policy[("face2", b, f, d1, d2, HANDS[h], k)] = names[k][acts2[k][h][d2][d1][r]]
        for h in _H:
            policy[("draw", HANDS[h], b, f)] = draws[h][r]
    for h in _H:
        policy[("open", HANDS[h])] = _OPEN[acts1[0][h]]
        for k in (1, 2, 3):
            policy[("face1", HANDS[h], k)] = names[k][acts1[k][h]]
    return policy


#: the seed's "almost perfect" opponent: each wrong action 1 time in 1000
GENERATOR_EPS = 0.001


def _climb(make: Callable[[Strategy, Choose], Any], bet1: int, bet2: int, iterations: int,
           rng: random.Random, eps: float, progress: Callable[[int, float], None] | None) -> Strategy:
    """``generate`` with the evaluator class ``make`` (``_reference`` passes its own)."""
    strategy = random_strategy(bet1, bet2, rng)
    ev = make(strategy, noisy(eps) if eps else best)
    order = ([("ROUND1", k) for k in round1_keys()] + [("DRAW", k) for k in draw_keys()]
             + [("ROUND2", k) for k in round2_keys()])
    current = ev.value
    tables: dict = {"ROUND1": strategy.round1, "DRAW": strategy.draw, "ROUND2": strategy.round2}
    for it in range(iterations):
        kind, key = order[it % len(order)]
        dist = random_dist(allowed(kind, key), rng)
        value = ev.try_change(kind, key, dist)
        if value < current:
            current = value
            tables[kind][key] = dist
        else:
            ev.reject()
        if progress is not None:
            progress(it + 1, current)
    return strategy


def generate(bet1: int, bet2: int, iterations: int, rng: random.Random,
             eps: float = GENERATOR_EPS, progress: Callable[[int, float], None] | None = None) -> Strategy:
    """The seed's hill-climb.

    Start from a strategy drawn uniformly on every situation's constrained
    simplex; then ``iterations`` times: take the next situation (sweeping
    over all of them in file order, again and again), draw a new
    distribution the same way, and keep it if the best response against the
    almost-perfect opponent (``eps``) earns strictly less.
    """
    return _climb(Evaluator, bet1, bet2, iterations, rng, eps, progress)
