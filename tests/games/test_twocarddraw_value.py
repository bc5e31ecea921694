"""TwoCardDraw's numpy best response (games.twocarddraw._solve) against the
plain-Python one it replaced (games.twocarddraw._reference): the same values,
the same best-response policy, the same hill-climb and generated files.

No timings here; benchmarks/twocarddraw_value.py measures the speed.
"""

from __future__ import annotations

import hashlib
import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.twocarddraw import Strategy, format_strategy, generate, parse_strategy, random_strategy
from games.twocarddraw import _reference as ref
from games.twocarddraw import _solve as fast
from games.twocarddraw._solve import GENERATOR_EPS, best, noisy
from games.twocarddraw._strategy import allowed, draw_keys, playable, random_dist, round1_keys, round2_keys

from ..conftest import ROOT

SAMPLES = sorted((ROOT / "sample_bots" / "twocarddraw").glob("strategy_*.txt"))
CHOOSERS = [best, noisy(GENERATOR_EPS)]

# The numpy evaluator adds left to right, as Python's sum() did before 3.12;
# from 3.12 sum() compensates rounding, so the reference's last bits may
# differ there (by far less than 1e-12) and only the tolerance is checked.
SAME_BITS = sys.version_info < (3, 12)


def assert_same(new: float, old: float) -> None:
    assert abs(new - old) <= 1e-12, (new, old)
    if SAME_BITS:
        assert new == old, (new.hex(), old.hex())


def test_there_are_sample_strategies():
    assert len(SAMPLES) >= 3


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_strategies_have_the_same_value_and_policy(path):
    s = parse_strategy(path.read_text())
    assert_same(fast.strategy_value(s), ref.strategy_value(s))
    for choose in CHOOSERS:
        assert_same(fast.Evaluator(s, choose).value, ref.Evaluator(s, choose).value)
    if SAME_BITS:  # ties between actions are decided by the last bits
        assert fast.best_response_policy(s) == ref.best_response_policy(s)


@st.composite
def strategies(draw) -> Strategy:
    """Strategies of every stakes, with distributions drawn four ways: uniform
    on the simplex, pure (many exact ties for the best response), with zeros,
    and in quarters."""
    bet1 = draw(st.integers(1, 5))
    bet2 = draw(st.integers(bet1, 3 * bet1))
    style = draw(st.sampled_from(["uniform", "pure", "zeros", "quarters"]))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))

    def dist() -> tuple[float, float, float]:
        if style == "pure":
            i = rng.randrange(3)
            return tuple(float(j == i) for j in range(3))
        if style == "quarters":
            a = rng.randint(0, 4)
            b = rng.randint(0, 4 - a)
            return (a / 4, b / 4, (4 - a - b) / 4)
        mask = (True, True, True) if style == "uniform" else tuple(rng.random() < 0.6 for _ in range(3))
        return random_dist(mask if any(mask) else (False, True, False), rng)

    s = Strategy(bet1, bet2)
    for key in round1_keys():
        s.round1[key] = playable(dist(), key[2])
    for key in draw_keys():
        s.draw[key] = dist()
    for key in round2_keys():
        s.round2[key] = playable(dist(), key[3])
    return s


@settings(max_examples=40, deadline=None)
@given(strategies(), st.sampled_from(CHOOSERS))
def test_random_strategies_have_the_same_value(s, choose):
    assert_same(fast.Evaluator(s, choose).value, ref.Evaluator(s, choose).value)


def test_situations_in_any_order_give_the_same_value():
    # Parsed files may list situations in any order: then each is looked up.
    s = random_strategy(3, 7, random.Random(3))
    shuffled = Strategy(3, 7)
    for name in ("round1", "draw", "round2"):
        items = list(getattr(s, name).items())
        random.Random(name).shuffle(items)
        getattr(shuffled, name).update(items)
    assert list(shuffled.round2) != list(s.round2)
    assert fast.strategy_value(shuffled) == fast.strategy_value(s)
    assert_same(fast.strategy_value(shuffled), ref.strategy_value(s))


@pytest.mark.parametrize("choose", CHOOSERS, ids=["best", "noisy"])
def test_changes_and_undos_follow_the_reference(choose):
    # Every kind of change, kept or undone, then a fresh evaluation.
    s = random_strategy(2, 5, random.Random(21))
    new, old = fast.Evaluator(s, choose), ref.Evaluator(s, choose)
    rng = random.Random(22)
    keys = ([("ROUND1", k) for k in round1_keys()] + [("DRAW", k) for k in draw_keys()]
            + [("ROUND2", k) for k in round2_keys()])
    tables = {"ROUND1": s.round1, "DRAW": s.draw, "ROUND2": s.round2}
    for step in range(40):
        kind, key = keys[rng.randrange(60)] if step % 8 == 0 else rng.choice(keys)
        dist = random_dist(allowed(kind, key), rng)
        assert_same(new.try_change(kind, key, dist), old.try_change(kind, key, dist))
        if step % 3 == 0:
            new.reject()
            old.reject()
        else:
            tables[kind][key] = dist
        assert_same(new.value, old.value)
    assert_same(new.value, fast.Evaluator(s, choose).value)


def test_the_hill_climb_takes_the_same_path():
    # 500 steps: the 60 round-1 situations, the 315 draws, then round 2.
    paths = []
    for module in (fast, ref):
        values: list[float] = []
        strategy = module.generate(1, 3, 500, random.Random(7), progress=lambda _, v: values.append(v))
        paths.append((values, strategy))
    (new_values, new_strategy), (old_values, old_strategy) = paths
    for a, b in zip(new_values, old_values, strict=True):
        assert_same(a, b)
    if SAME_BITS:
        assert new_strategy == old_strategy


# SHA-256 of the file `arena strategy generate --bet1 B1 --bet2 B2 --iterations
# N --seed S` wrote with the plain-Python evaluator (Python 3.11), before numpy.
@pytest.mark.parametrize("bet1,bet2,iterations,seed,sha256", [
    (5, 10, 300, 3, "b399df3b97e0c92481a70a2ef0e6944c487c34d20cf3be48de6dd94b276afaa9"),
    (2, 4, 3000, 4, "80e9b45e1d8ac6a5caa8d8e7a2d3b671c4a82c9c598cc606a0cebfa248e9c6a8"),
    # more than one sweep over the 4,155 situations
    (3, 6, 4400, 2026, "f2130d0f1bc86935088c7288ce4e3be3b4dcded370e68948ce14635f93751935"),
])
def test_the_generator_writes_the_same_files(bet1, bet2, iterations, seed, sha256):
    text = format_strategy(generate(bet1, bet2, iterations, random.Random(seed)), 6)  # the CLI's default digits
    assert hashlib.sha256(text.encode()).hexdigest() == sha256
