"""The SPRT, Elo and LOS of two entrants, against fastchess's decisions.

Each case is a set of recorded results (the counts fastchess's own test suite
uses), the test's parameters, the log-likelihood ratio fastchess's formulas
give for them, and so the decision: H1 at or above ln((1-beta)/alpha), H0 at
or below ln(beta/(1-alpha)), else play on.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest

from arena._checks import UsageError
from arena.results._sprt import MODELS, Sprt, Tally, elo, tally


def trinomial(wins: int, losses: int, draws: int) -> Tally:
    return Tally((losses, draws, wins))


def pentanomial(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> Tally:
    return Tally((0, 0, 0), (ll, ld, wl + dd, wd, ww))


# (model, elo0, elo1, counts, fastchess's LLR, decision at alpha = beta = 0.05)
CASES = [
    ("normalized", 0, 2, trinomial(36433, 36027, 68692), 0.92, None),
    ("normalized", -1.75, 0.25, trinomial(10871, 10650, 20431), 2.30, None),
    ("normalized", 0, 10, trinomial(4250, 0, 0), 120.56, "H1"),
    ("logistic", 0.5, 2.5, trinomial(21404, 21184, 40708), -1.57, None),
    ("logistic", 0, 2, trinomial(57433, 57030, 106593), -2.59, None),
    ("normalized", 0, 2, pentanomial(365, 16618, 36029, 200, 16974, 390), 2.25, None),
    ("normalized", -1.75, 0.25, pentanomial(127, 4883, 10311, 401, 5150, 104), 3.01, "H1"),
    ("normalized", 0, 5, pentanomial(0, 0, 0, 0, 0, 5550), 111.82, "H1"),
    ("logistic", 0.5, 2.5, pentanomial(223, 9863, 20279, 1000, 10037, 246), -3.07, "H0"),
    ("logistic", 0, 2, pentanomial(871, 26175, 55003, 980, 26678, 821), -4.98, "H0"),
]


@pytest.mark.parametrize("model, elo0, elo1, counts, llr, decision", CASES)
def test_the_llr_and_decision_are_fastchess_s(model, elo0, elo1, counts, llr, decision):
    test = Sprt(elo0, elo1, 0.05, 0.05, model)
    found = test.llr(counts)
    assert found == pytest.approx(llr, rel=0.01)
    assert test.decide(found) == decision


def test_bounds_and_the_command_line_form():
    test = Sprt.parse("0,5")
    assert (test.elo0, test.elo1, test.alpha, test.beta, test.model) == (0, 5, 0.05, 0.05, "normalized")
    assert test.bounds == pytest.approx((-2.944, 2.944), abs=1e-3)
    assert Sprt.parse("-3, 1, 0.1, 0.2").bounds == pytest.approx((math.log(0.2 / 0.9), math.log(0.8 / 0.1)))
    for bad, words in (("5,0", "ELO0 (5) must be less than ELO1 (0)"), ("0,5,0.6,0.5", "ALPHA + BETA"),
                       ("0,5,1,0.05", "ALPHA is a probability"), ("0", "ELO0,ELO1"), ("a,b", "ELO0,ELO1"),
                       ("0,5,0.05", "ELO0,ELO1")):
        with pytest.raises(UsageError, match=words.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
            Sprt.parse(bad)


def test_results_are_counted_as_fastchess_counts_games_and_pairs():
    # (first's score, second's, deal): two deals played in both seatings, one unpaired
    results = [(5, -5, "d1"), (-2, 2, "d1"), (3, 3, "d2"), (4, -4, "d2"), (1, 0, "d3")]
    assert tally(results).trinomial == (1, 1, 3)  # losses, draws, wins
    paired = tally(results, paired=True)
    assert paired.pentanomial == (0, 0, 1, 1, 0)  # W+L over d1, D+W over d2; d3 waits for its twin
    assert paired.n == 2


def test_elo_and_los_as_fastchess_reports_them():
    # 60 wins, 40 losses: a score of 0.6
    found = elo(trinomial(60, 40, 0))
    assert found.diff == pytest.approx(-400 * math.log10(1 / 0.6 - 1))  # +70.4
    sd = math.sqrt(0.6 * 0.4 / 100)
    low, high = 0.6 - 1.959963984540054 * sd, 0.6 + 1.959963984540054 * sd
    assert found.error == pytest.approx((400 * math.log10(high / (1 - high)) - 400 * math.log10(low / (1 - low))) / 2)
    assert found.los == pytest.approx((1 - math.erf(-0.1 / math.sqrt(2 * sd * sd))) / 2)
    assert elo(Tally()) is None
    even = elo(trinomial(10, 10, 5))
    assert even.diff == pytest.approx(0) and even.los == pytest.approx(0.5)


@pytest.mark.parametrize("model", MODELS)
def test_any_bounds_a_poker_series_may_need_give_a_finite_llr(model):
    # Far from the observed results (400 Elo and more: a poker series) fastchess's own start
    # has no solution; the test must still answer, finitely, and never raise.
    rng = random.Random(7)
    bounds = [-4000, -800, -400, -300, 0, 5, 200, 300, 400, 800, 4000]
    for elo0, elo1 in itertools.combinations(bounds, 2):
        test = Sprt(elo0, elo1, model=model)
        for _ in range(10):
            tri = tuple(rng.choice([0, 1, 3, 10, 100, 1000]) for _ in range(3))
            penta = tuple(rng.choice([0, 1, 3, 10, 100]) for _ in range(5))
            for counts in (Tally(tri), Tally(tri, penta)):
                llr = test.llr(counts)
                assert math.isfinite(llr), (model, elo0, elo1, counts)


def test_far_bounds_still_decide_the_right_way():
    strong, weak = Tally((2, 10, 300)), Tally((300, 10, 2))
    test = Sprt(400, 800)
    assert test.llr(strong) > 0 > test.llr(weak)
    assert test.decide(test.llr(weak)) == "H0"


def test_bounds_no_series_can_tell_apart_are_refused():
    with pytest.raises(UsageError, match="beyond"):
        Sprt.parse("0,5000")


def test_the_chips_test_never_raises_and_decides_the_way_the_chips_go():
    rng = random.Random(11)
    bounds = [-5000, -500, -50, 0, 5, 50, 500, 5000]
    for m0, m1 in itertools.combinations(bounds, 2):
        test = Sprt(m0, m1, model="chips")
        for values in ([], [7.0], [3.0] * 40, [rng.gauss(0, 1e6) for _ in range(30)]):
            assert math.isfinite(test.llr_chips(values)), (m0, m1, values[:3])
    test = Sprt.parse("0,100", "chips")
    near = {m: [rng.gauss(m, 800) for _ in range(2000)] for m in (0, 100)}
    assert test.decide(test.llr_chips(near[100])) == "H1" and test.decide(test.llr_chips(near[0])) == "H0"
    # n/2 log(s0/s1), each s the mean squared distance from its bound: 20/2 log(10100/100)
    values = [90.0, 110.0] * 10
    assert test.llr_chips(values) == pytest.approx(10 * math.log(101), rel=1e-6)
    with pytest.raises(UsageError, match="--sprt-chips: MBB0 .* must be less than MBB1"):
        Sprt.parse("100,0", "chips")
    with pytest.raises(UsageError, match="--sprt-chips takes MBB0,MBB1"):
        Sprt.parse("fast", "chips")
