"""Two entrants' results as a chess tester counts them: Elo difference with
its 95% interval, likelihood of superiority, and the sequential probability
ratio test that stops a match series once it has an answer.

The numbers follow fastchess's published formulas (its Elo, LOS and SPRT,
after Michel Van den Bergh's notes on the generalised log-likelihood ratio),
so that the same recorded results give the same decision. A match is a win,
a draw or a loss for the first entrant by comparing the two scores; with
paired deals (``--duplicate``: both seatings share the cards) each pair is
one pentanomial outcome, worth 0, 1/4, ... 1, which is what removes the
cards' luck from the test.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from .._checks import UsageError

Z95 = 1.959963984540054
_NELO = 800.0 / math.log(10)  # normalised Elo per unit of t = (score - 1/2) / sigma


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected score in (0, 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_to_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True, slots=True)
class Tally:
    """Counts of outcomes for the first entrant. ``trinomial``: (losses,
    draws, wins); ``pentanomial``: pairs scoring 0, 1/4, 1/2, 3/4, 1."""

    trinomial: tuple[int, int, int] = (0, 0, 0)
    pentanomial: tuple[int, int, int, int, int] | None = None

    @property
    def paired(self) -> bool:
        return self.pentanomial is not None

    def outcomes(self) -> tuple[list[float], list[int]]:
        """(the outcome values, their counts) of the model in use."""
        if self.pentanomial is not None:
            return [0.0, 0.25, 0.5, 0.75, 1.0], list(self.pentanomial)
        return [0.0, 0.5, 1.0], list(self.trinomial)

    @property
    def n(self) -> int:
        return sum(self.outcomes()[1])


def tally(results: Iterable[tuple[float, float, object]], paired: bool = False) -> Tally:
    """Count ``(first's score, second's score, deal key)`` results; with
    ``paired``, results sharing a deal key two by two make one pentanomial
    outcome (an unpaired one, still waiting for its twin, is left out)."""
    tri = [0, 0, 0]
    by_deal: dict[object, list[int]] = {}
    for x, y, key in results:
        k = 2 if x > y else 0 if x < y else 1
        tri[k] += 1
        by_deal.setdefault(key, []).append(k)
    if not paired:
        return Tally(tuple(tri))  # type: ignore[arg-type]
    penta = [0] * 5
    for ks in by_deal.values():
        for a, b in zip(ks[0::2], ks[1::2]):
            penta[a + b] += 1
    return Tally(tuple(tri), tuple(penta))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Elo:
    diff: float
    error: float  # half the width of the 95% interval, in Elo
    los: float  # likelihood of superiority, 0..1
    score: float


def elo(t: Tally) -> Elo | None:
    """Elo difference, its 95% interval and LOS, from the pentanomial counts
    when there are pairs, else the trinomial ones; None before any outcome."""
    values, counts = t.outcomes()
    n = sum(counts)
    if n == 0:
        return None
    score = sum(v * c for v, c in zip(values, counts)) / n
    variance = sum(c * (v - score) ** 2 for v, c in zip(values, counts)) / n
    per = variance / n
    if per > 0:
        error = (score_to_elo(score + Z95 * math.sqrt(per)) - score_to_elo(score - Z95 * math.sqrt(per))) / 2.0
        los = (1.0 - math.erf(-(score - 0.5) / math.sqrt(2.0 * per))) / 2.0
    else:
        error = math.nan
        los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    return Elo(score_to_elo(score), error, los, score)


# --- the sequential test ------------------------------------------------------

#: "chips" tests chips, not match wins: ``elo0`` and ``elo1`` are then the first
#: entrant's winnings in mbb/g (see ``Sprt.llr_chips``)
MODELS = ("normalized", "logistic", "chips")
#: The largest |Elo| a bound may have (logistic: a score of 1/(1 + 1e-10)).
MAX_ELO = 4000.0


@dataclass(frozen=True, slots=True)
class Sprt:
    """H0: the Elo difference is ``elo0``; H1: it is ``elo1``. ``alpha`` and
    ``beta`` are the chances of accepting H1 when H0 holds and H0 when H1 does."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    @classmethod
    def parse(cls, text: str, model: str = "normalized") -> Sprt:
        """``ELO0,ELO1[,ALPHA,BETA]``, checked as fastchess checks it (``model``
        "chips": ``MBB0,MBB1[,ALPHA,BETA]``, for ``--sprt-chips``)."""
        option, words = ("--sprt-chips", "MBB0,MBB1") if model == "chips" else ("--sprt", "ELO0,ELO1")
        parts = [p.strip() for p in re.split(r"[,\s]+", text.strip()) if p.strip()]
        try:
            numbers = [float(p) for p in parts]
        except ValueError:
            numbers = []
        if len(numbers) not in (2, 4) or not all(math.isfinite(x) for x in numbers):
            raise UsageError(f"{option} takes {words} or {words},ALPHA,BETA (like 0,5 or 0,5,0.05,0.05), "
                             f"not {text!r}")
        elo0, elo1, *chances = numbers
        test = (cls(elo0, elo1, chances[0], chances[1], model) if chances else cls(elo0, elo1, model=model))
        test.check()
        return test

    def check(self) -> None:
        if self.model == "chips":
            if self.elo0 >= self.elo1:
                raise UsageError(f"--sprt-chips: MBB0 ({self.elo0:g}) must be less than MBB1 ({self.elo1:g})")
            self._check_chances()
            return
        for name, e in (("ELO0", self.elo0), ("ELO1", self.elo1)):
            if abs(e) > MAX_ELO:
                raise UsageError(
                    f"--sprt: {name} ({e:g}) is beyond +/-{MAX_ELO:g} Elo, an expected score within 1e-10 of 0 or 1: "
                    "no series can tell such differences apart")
        if self.elo0 >= self.elo1:
            raise UsageError(f"--sprt: ELO0 ({self.elo0:g}) must be less than ELO1 ({self.elo1:g})")
        self._check_chances()

    def _check_chances(self) -> None:
        for name, p in (("ALPHA", self.alpha), ("BETA", self.beta)):
            if not 0.0 < p < 1.0:
                raise UsageError(f"--sprt: {name} is a probability between 0 and 1, exclusive; got {p:g}")
        if self.alpha + self.beta >= 1.0:
            raise UsageError(f"--sprt: ALPHA + BETA must be less than 1; got {self.alpha + self.beta:g}")
        if self.model not in MODELS:
            raise UsageError(f"--sprt model is one of {', '.join(MODELS)}, not {self.model!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        return math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha)

    def llr(self, t: Tally) -> float:
        """The generalised log-likelihood ratio of H1 against H0 for the counts."""
        values, counts = t.outcomes()
        if sum(counts) == 0:
            return 0.0
        regular = [c if c > 0 else 1e-3 for c in counts]  # an empty class must not pin a probability to 0
        total = sum(regular)
        probs = [c / total for c in regular]
        if self.model == "normalized":
            scale = math.sqrt(2.0) if t.paired else 1.0
            p0 = _mle_normalized(values, probs, 0.5, scale * self.elo0 / _NELO)
            p1 = _mle_normalized(values, probs, 0.5, scale * self.elo1 / _NELO)
        else:
            p0 = _mle_logistic(values, probs, elo_to_score(self.elo0))
            p1 = _mle_logistic(values, probs, elo_to_score(self.elo1))
        return total * sum(p * (math.log(a) - math.log(b)) for p, a, b in zip(probs, p1, p0))

    def llr_chips(self, values: Sequence[float]) -> float:
        """The generalised log-likelihood ratio of H1 (the mean of ``values`` is
        ``elo1``) against H0 (``elo0``) for independent normal observations of
        unknown variance: ``n/2 log(s0 / s1)``, ``sk`` the mean squared distance
        from ``elok``. The observations are the first entrant's mbb/g in each
        match (each deal, with duplicate seatings)."""
        n = len(values)
        if n < 2:
            return 0.0
        mean = sum(values) / n
        spread = sum((x - mean) ** 2 for x in values) / n
        # a floor: a series of identical results must not make either hypothesis infinitely likely
        floor = max(spread, ((self.elo1 - self.elo0) / 2) ** 2) * 1e-9
        s0 = sum((x - self.elo0) ** 2 for x in values) / n + floor
        s1 = sum((x - self.elo1) ** 2 for x in values) / n + floor
        return n / 2 * math.log(s0 / s1)

    def decide(self, llr: float) -> str | None:
        """'H1' (the first entrant is the stronger by elo1), 'H0', or None: play on."""
        low, high = self.bounds
        return "H1" if llr >= high else "H0" if llr <= low else None

    def describe(self) -> str:
        if self.model == "chips":
            return (f"SPRT on chips, mbb0 {self.elo0:g}, mbb1 {self.elo1:g} (mbb/g), alpha {self.alpha:g}, "
                    f"beta {self.beta:g}")
        return (f"SPRT elo0 {self.elo0:g}, elo1 {self.elo1:g} ({self.model} Elo), alpha {self.alpha:g}, "
                f"beta {self.beta:g}")

    def to_json(self) -> dict:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta, "model": self.model}

    @classmethod
    def from_json(cls, data: dict) -> Sprt:
        return cls(data["elo0"], data["elo1"], data.get("alpha", 0.05), data.get("beta", 0.05),
                   data.get("model", "normalized"))


def _root(f, low: float, high: float, tol: float) -> float:
    """The root of the decreasing ``f`` strictly inside (low, high), by bisection."""
    a, b = low, high
    for _ in range(200):
        mid = (a + b) / 2.0
        if mid in (a, b) or b - a <= tol:
            return mid
        v = f(mid)
        if v == 0.0:
            return mid
        if v > 0.0:
            a = mid
        else:
            b = mid
    return (a + b) / 2.0


def _solve(weights: Sequence[float], phi: Sequence[float], tol: float) -> float:
    """θ with Σ wᵢ φᵢ / (1 + θ φᵢ) = 0, where every 1 + θ φᵢ stays positive."""
    low, high = -1.0 / max(phi), -1.0 / min(phi)
    return _root(lambda x: sum(w * f / (1.0 + x * f) for w, f in zip(weights, phi)), low, high, tol)


def _mle_logistic(values: list[float], probs: list[float], s: float) -> list[float]:
    """The distribution nearest the observed one with expected score ``s``."""
    phi = [a - s for a in values]
    theta = _solve(probs, phi, 1e-12)
    return [p / (1.0 + theta * f) for p, f in zip(probs, phi)]


def _mle_normalized(values: list[float], probs: list[float], ref: float, t: float) -> list[float]:
    """The distribution nearest the observed one whose (mean - ref) / sigma is ``t``.

    First as fastchess computes it (a fixed point from the uniform
    distribution), so that its decisions are ours. Far from the observed
    t (the bounds of a poker series: 400 normalised Elo and more) that
    start has no solution; then the answer is walked to from the observed
    distribution, which is its own solution at the observed t, one step of t
    at a time (halved where a step has none)."""
    found = _fixed_point(values, probs, ref, t, [1.0 / len(values)] * len(values))
    if found is not None:
        return found
    p, at = probs, _t_value(values, probs, ref)
    step = t - at
    while at != t:
        goal = t if abs(t - at) <= abs(step) else at + step
        nxt = _fixed_point(values, probs, ref, goal, p)
        if nxt is None:
            step /= 2.0
            if abs(step) < 1e-9:
                break  # no distribution with every outcome possible reaches t: the nearest found
            continue
        p, at = nxt, goal
    return p


def _t_value(values: list[float], p: list[float], ref: float) -> float:
    mu = sum(a * q for a, q in zip(values, p))
    sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(values, p)))
    return (mu - ref) / sigma if sigma > 0 else 0.0


def _fixed_point(values: list[float], probs: list[float], ref: float, t: float,
                 start: list[float]) -> list[float] | None:
    """fastchess's iteration for the normalised model from ``start``, or None
    where it has no solution (every term of one sign) or leaves the simplex."""
    p = start
    for _ in range(10):
        mu = sum(a * q for a, q in zip(values, p))
        sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(values, p)))
        if not sigma > 0:
            return None
        phi = [a - ref - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in values]
        if max(phi) <= 0.0 or min(phi) >= 0.0:
            return None
        theta = _solve(probs, phi, 1e-12)
        new = [q / (1.0 + theta * f) for q, f in zip(probs, phi)]
        if not all(x > 0.0 and math.isfinite(x) for x in new):
            return None
        moved = max(abs(x - y) for x, y in zip(new, p))
        p = new
        if moved < 1e-4:
            break
    return p
