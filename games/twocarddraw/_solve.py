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
"""

from __future__ import annotations

import random
from collections.abc import Callable

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

#: (bets, first) of the history each terminal of a betting round ends in,
#: in the order the tree code lists them (see _tree)
_TERMINALS = (0, 1, 2, 3, 4, 5, 6)  # = HISTORIES indices
_TERMINAL_BETS = tuple(b for b, _ in HISTORIES)

Choose = Callable[[list[float]], tuple[float, int]]


def best(values: list[float]) -> tuple[float, int]:
    i = max(range(len(values)), key=values.__getitem__)
    return values[i], i


def noisy(eps: float) -> Choose:
    """An opponent that plays its best action except, for each other action,
    a fraction ``eps`` of the time (the seed's 'almost perfect' opponent)."""

    def choose(values: list[float]) -> tuple[float, int]:
        v, i = best(values)
        rest = sum(values) - v
        return (1 - eps * (len(values) - 1)) * v + eps * rest, i

    return choose


def _vectors(w: list[float], sig: list[list[tuple[float, float, float]]]) -> tuple[list[list[float]], list[float]]:
    """The strategy's weight vectors at the ends of a betting round.

    ``w`` is the weight of each of its hands entering the round, ``sig[k][s]``
    its distribution with k bets made. Returns the 7 vectors of the ways the
    round can end with a call (in HISTORIES order) and 5 sums for the folds:
    [strategy folds to a bet, strategy folds to a 3rd bet (after bet-raise-raise),
     strategy folds to a re-raise (check-bet-raise), first player faces 1 bet
     after checking, faces 3 bets, faces 2 bets].
    """
    s0, s1, s2, s3 = sig
    c0 = [w[s] * s0[s][1] for s in _H]
    u1 = [w[s] * s0[s][2] for s in _H]  # check, strategy bets
    c2 = [u1[s] * s2[s][1] for s in _H]
    u3 = [u1[s] * s2[s][2] for s in _H]
    c1b = [w[s] * s1[s][1] for s in _H]
    v2 = [w[s] * s1[s][2] for s in _H]  # bet, strategy raises
    c3b = [v2[s] * s3[s][1] for s in _H]
    f1 = sum(w[s] * s1[s][0] for s in _H)
    f3 = sum(v2[s] * s3[s][0] for s in _H)
    f2 = sum(u1[s] * s2[s][0] for s in _H)
    ends = [c0, c1b, v2, c3b, u1, c2, u3]
    return ends, [f1, f3, f2, sum(u1), sum(u3), sum(v2)]


def _tree(choose: Choose, base: float, size: float, sd: list[float], folds: list[float],
          record: dict | None = None) -> float:
    """The first player's value of a betting round it opens.

    ``sd[i]`` is the value of the round ending in HISTORIES[i] (a call),
    ``base`` what each player has in the pot when the round starts. A player
    who folds loses what it has in; the bet it did not call is not lost.
    """
    f1, f3, f2, su1, su3, sv2 = folds
    b3, a3 = choose([-(base + 2 * size) * su3, sd[6]])  # check-bet-raise-raise: fold/call
    s2 = (base + size) * f2 + sd[5] + b3
    b1, a1 = choose([-base * su1, sd[4], s2])  # check-bet: fold/call/raise
    check = sd[0] + b1
    s3 = (base + 2 * size) * f3 + sd[3]
    b2, a2 = choose([-(base + size) * sv2, sd[2], s3])  # bet-raise: fold/call/raise
    bet = base * f1 + sd[1] + b2
    root, a0 = choose([check, bet])
    if record is not None:
        record.update({0: ("check", "bet")[a0], 1: ("fold", "call", "raise")[a1],
                       2: ("fold", "call", "raise")[a2], 3: ("fold", "call")[a3]})
    return root


def _showdown_values(vec: list[float]) -> list[float]:
    """For each of the first player's hands b: sum over s of vec[s] * compare(b, s)."""
    total = sum(vec)
    out = [0.0] * N
    below = 0.0
    for h in ORDER:
        out[h] = 2 * below + vec[h] - total
        below += vec[h]
    return out


class Evaluator:
    """The value of the best response to a strategy, kept up to date when one
    situation changes (the hill-climb changes one at a time)."""

    def __init__(self, strategy: Strategy, choose: Choose = best) -> None:
        self.choose = choose
        self.bet1, self.bet2 = strategy.bet1, strategy.bet2
        st = strategy
        self.r1 = [[st.round1[(*HANDS[s], k)] for s in _H] for k in range(4)]
        self.dr = [[[st.draw[(*HANDS[s], b, d, f)] for s in _H] for d in range(3)] for b, f in HISTORIES]
        self.r2 = {
            (r, d1, d2): [[st.round2[(*HANDS[s], b, k, d1, d2, f)] for s in _H] for k in range(4)]
            for r, (b, f) in enumerate(HISTORIES) for d1 in range(3) for d2 in range(3)
        }
        self.full()

    # -- the layers, bottom up ----------------------------------------------

    def _context(self, r: int, d1: int, d2: int, record: dict | None = None) -> list[float]:
        """Round-2 value for each of the first player's hands after the draw."""
        w = self.ctx_in[r][d1][d2]
        ends, folds = _vectors(w, self.r2[(r, d1, d2)])
        eq = [_showdown_values(v) for v in ends]
        base = 1 + HISTORIES[r][0] * self.bet1
        size = self.bet2
        pots = [base + k * size for k in _TERMINAL_BETS]
        out = []
        for b in _H:
            sd = [pots[i] * eq[i][b] for i in range(7)]
            rec = {} if record is not None else None
            out.append(_tree(self.choose, base, size, sd, folds, rec))
            if record is not None:
                record[b] = rec
        return out

    def _draw_in(self, r: int, d1: int) -> list[list[float]]:
        """The strategy's weights after it drew d2 = 0, 1, 2, over its new hands."""
        w = self.r1_ends[r]
        dist = self.dr[r][d1]
        out = []
        for d2 in range(3):
            v = [0.0] * N
            for s in _H:
                m = w[s] * dist[s][d2]
                if m:
                    for t, p in TRANS[s][d2]:
                        v[t] += m * p
            out.append(v)
        return out

    def _draw_sum(self, r: int, d1: int) -> list[float]:
        c = self.ctx_val
        a, b, d = c[(r, d1, 0)], c[(r, d1, 1)], c[(r, d1, 2)]
        return [a[h] + b[h] + d[h] for h in _H]

    def _draw_value(self, r: int, record: dict | None = None) -> list[float]:
        """For each hand the first player holds before the draw: the value of
        its best draw (the strategy's draw and round 2 included)."""
        ds = self.ds[r]
        out = []
        for b in _H:
            vals = [sum(p * ds[d][t] for t, p in TRANS[b][d]) for d in range(3)]
            v, i = self.choose(vals)
            out.append(v)
            if record is not None:
                record[b] = i
        return out

    def _round1(self, record: dict | None = None) -> float:
        total = 0.0
        for b in _H:
            sd = [self.dv[r][b] for r in range(7)]
            rec = {} if record is not None else None
            total += PRIOR[b] * _tree(self.choose, 1, self.bet1, sd, self.r1_folds, rec)
            if record is not None:
                record[b] = rec
        return total

    def full(self) -> float:
        self.r1_ends, self.r1_folds = _vectors(PRIOR, self.r1)
        self.ctx_in = [[self._draw_in(r, d1) for d1 in range(3)] for r in range(7)]
        self.ctx_val = {(r, d1, d2): self._context(r, d1, d2) for r in range(7) for d1 in range(3) for d2 in range(3)}
        self.ds = [[self._draw_sum(r, d1) for d1 in range(3)] for r in range(7)]
        self.dv = [self._draw_value(r) for r in range(7)]
        self.value = self._round1()
        return self.value

    # -- one situation changes ------------------------------------------------

    def try_change(self, kind: str, key: tuple[int, ...], dist: tuple[float, float, float]) -> float:
        """Play ``dist`` in situation ``key`` and return the best response's
        new value; ``reject()`` puts the old distribution back."""
        s = HAND_INDEX[(key[0], key[1])]
        if kind == "ROUND1":
            table = self.r1[key[2]]
            saved: tuple = (self.r1_ends, self.r1_folds, self.ctx_in, self.ctx_val, self.ds, self.dv, self.value)
            old = table[s]
            table[s] = dist

            def undo_all() -> None:
                table[s] = old
                (self.r1_ends, self.r1_folds, self.ctx_in, self.ctx_val, self.ds, self.dv, self.value) = saved

            self._undo = undo_all
            return self.full()
        if kind == "DRAW":
            b, d1, f = key[2], key[3], key[4]
            r = HIST_INDEX[(b, f)]
            table = self.dr[r][d1]
            touched = [0, 1, 2]
        else:
            b, k, d1, d2, f = key[2:7]
            r = HIST_INDEX[(b, f)]
            table = self.r2[(r, d1, d2)][k]
            touched = [d2]
        old = table[s]
        saved_in = self.ctx_in[r][d1]
        saved_ctx = {d2: self.ctx_val[(r, d1, d2)] for d2 in touched}
        saved = (self.ds[r][d1], self.dv[r], self.value)
        table[s] = dist
        if kind == "DRAW":
            self.ctx_in[r][d1] = self._draw_in(r, d1)
        for d2 in touched:
            self.ctx_val[(r, d1, d2)] = self._context(r, d1, d2)
        self.ds[r][d1] = self._draw_sum(r, d1)
        self.dv[r] = self._draw_value(r)
        self.value = self._round1()

        def undo() -> None:
            table[s] = old
            self.ctx_in[r][d1] = saved_in
            for d2, v in saved_ctx.items():
                self.ctx_val[(r, d1, d2)] = v
            self.ds[r][d1], self.dv[r], self.value = saved

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


def best_response_policy(strategy: Strategy) -> dict:
    """The best response's action in every information set of the first player.

    Keys: ``("open", b0)``/``("face1", b0, bets)`` -> action in round 1;
    ``("draw", b0, bets1, first)`` -> cards to draw;
    ``("open2", bets1, first, drew, opp_drew, b1)``/``("face2", ..., b1, bets2)``
    -> action in round 2. Hands are (low, high) tuples.
    """
    ev = Evaluator(strategy)
    policy: dict = {}
    for r, (b, f) in enumerate(HISTORIES):
        for d1 in range(3):
            for d2 in range(3):
                rec: dict = {}
                ev._context(r, d1, d2, rec)
                for h, acts in rec.items():
                    policy[("open2", b, f, d1, d2, HANDS[h])] = acts[0]
                    for k in (1, 2, 3):
                        policy[("face2", b, f, d1, d2, HANDS[h], k)] = acts[k]
        rec = {}
        ev._draw_value(r, rec)
        for h, d in rec.items():
            policy[("draw", HANDS[h], b, f)] = d
    rec = {}
    ev._round1(rec)
    for h, acts in rec.items():
        policy[("open", HANDS[h])] = acts[0]
        for k in (1, 2, 3):
            policy[("face1", HANDS[h], k)] = acts[k]
    return policy


#: the seed's "almost perfect" opponent: each wrong action 1 time in 1000
GENERATOR_EPS = 0.001


def generate(bet1: int, bet2: int, iterations: int, rng: random.Random,
             eps: float = GENERATOR_EPS, progress: Callable[[int, float], None] | None = None) -> Strategy:
    """The seed's hill-climb.

    Start from a strategy drawn uniformly on every situation's constrained
    simplex; then ``iterations`` times: take the next situation (sweeping
    over all of them in file order, again and again), draw a new
    distribution the same way, and keep it if the best response against the
    almost-perfect opponent (``eps``) earns strictly less.
    """
    strategy = random_strategy(bet1, bet2, rng)
    ev = Evaluator(strategy, noisy(eps) if eps else best)
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
