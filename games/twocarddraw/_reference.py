"""The plain-Python best response that ``_solve`` vectorised (reference only).

Kept so that the tests (tests/games/test_twocarddraw_value.py) and the benchmark
(benchmarks/twocarddraw_value.py) can check the numpy evaluator against it:
both must give the same value bit for bit, and so the same hill-climb. The
arena itself never uses this module. The definitions both share (hands,
transitions, the opponents' choice rules, the hill-climb loop) are
``_solve``'s; see its docstring for what the values mean.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ._rules import HAND_INDEX, HANDS
from ._solve import (
    _H,
    _TERMINAL_BETS,
    GENERATOR_EPS,
    HIST_INDEX,
    ORDER,
    PRIOR,
    TRANS,
    Choose,
    _climb,
    best,
)
from ._strategy import HISTORIES, Strategy

N = len(HANDS)


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
            rec: dict[int, str] | None = {} if record is not None else None
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
            rec: dict[int, str] | None = {} if record is not None else None
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


def best_response_profit(strategy: Strategy) -> float:
    return Evaluator(strategy).value


def strategy_value(strategy: Strategy) -> float:
    return -best_response_profit(strategy)


def best_response_policy(strategy: Strategy) -> dict:
    """As ``_solve.best_response_policy``."""
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


def generate(bet1: int, bet2: int, iterations: int, rng: random.Random,
             eps: float = GENERATOR_EPS, progress: Callable[[int, float], None] | None = None) -> Strategy:
    """``_solve.generate`` with this module's evaluator."""
    return _climb(Evaluator, bet1, bet2, iterations, rng, eps, progress)
