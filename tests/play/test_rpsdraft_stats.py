"""Statistical test: a long series between two fixed strategies against an exact expectation.

Seat 0 runs sample_bots/rpsdraft/simple.js through the JS shim: it keeps the
stronger offered card (higher number, then R > S > P > R) and always plays
the first card of its hand. Seat 1 runs sample_bots/rpsdraft/minimal_bot.py:
it keeps the first offered card and plays the first card of its hand.

Why the expectation is exact and cheap: playing index 0 with the drawn card
appended at the end of the hand plays each deck in its shuffled order, so in
every turn seat 0's card is uniform over its deck D0, seat 1's over D1 and the
base over the 10 remaining cards R, independently (three separate shuffles).
Expected turns won by seat 0 = 10 * E[sum over D0 x D1 x R of win] / 1000.
That sum splits by the draft round each card came from; in round r seat 0 is
offered (w, x) and keeps K = stronger(w, x), leaving L; seat 1 is offered
(y, z) and keeps y, leaving z. So D0 = {K, z} and D1 = {y, L} per round, and
every term is an average over a few distinct uniform cards, enumerated below
with a comparison rule written independently of the engine.
"""

from __future__ import annotations

import itertools
import math
import shutil
from fractions import Fraction

import pytest

from ..conftest import ROOT, replay_key, run_json

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

SYMBOLS = "RSP"  # each beats the next one, cyclically
CARDS = [s + str(n) for s in SYMBOLS for n in range(10)]
MATCHES = 500
K_SE = 4


def first_wins(a: str, b: str, base: str | None) -> bool:
    """Does a beat b? A sort key (pair with the base, number), then the RPS cycle."""
    def key(card):
        return (base is not None and card[1] == base[1], int(card[1]))

    if key(a) != key(b):
        return key(a) > key(b)
    return (SYMBOLS.index(b[0]) - SYMBOLS.index(a[0])) % 3 == 1


def expected_turns_won_by_seat0(rule=first_wins) -> Fraction:
    """Exact expected turns won by seat 0, when ``rule`` decides each turn."""
    win = {(a, b, c): rule(a, b, c) for a, b, c in itertools.permutations(CARDS, 3)}
    # W[a, b]: over every third card as the base, how often a beats b
    W = {(a, b): 0 for a, b in itertools.permutations(CARDS, 2)}
    for (a, b, _c), w in win.items():
        W[a, b] += w
    pairs = [(k, l) if first_wins(k, l, None) else (l, k) for k, l in itertools.combinations(CARDS, 2)]

    # E1: a, b, base all uniform (z against y, from any rounds)
    e1 = Fraction(sum(win.values()), len(win))
    # E2: K of a pair against a uniform card b, base avoiding the pair and b
    e2 = Fraction(sum(W[k, b] - win[k, b, l] for k, l in pairs for b in CARDS if b not in (k, l)),
                  len(pairs) * 28 * 27)
    # E3: a uniform card a against L of a pair
    e3 = Fraction(sum(W[a, l] - win[a, l, k] for k, l in pairs for a in CARDS if a not in (k, l)),
                  len(pairs) * 28 * 27)
    # E4: K of one pair against L' of a disjoint pair
    total, count = 0, 0
    for k, l in pairs:
        for k2, l2 in pairs:
            if len({k, l, k2, l2}) == 4:
                total += W[k, l2] - win[k, l2, l] - win[k, l2, k2]
                count += 1
    e4 = Fraction(total, count * 26)
    # E5: K against the L of the same pair
    e5 = Fraction(sum(W[k, l] for k, l in pairs), len(pairs) * 28)

    same_round = e2 + e5 + e1 + e3  # (K,y) (K,L) (z,y) (z,L)
    cross_round = e1 + e2 + e3 + e4  # (z,y') (K,y') (z,L') (K,L')
    rounds, turns, deck, rest = 5, 10, 10, 10
    expected_sum = rest * (rounds * same_round + rounds * (rounds - 1) * cross_round)
    return turns * expected_sum / (deck * deck * rest)


def test_the_decomposition_weighs_every_turn_once():
    # If seat 0 won every turn whatever the cards, it would win all 10.
    assert expected_turns_won_by_seat0(lambda a, b, c: True) == 10
    # A rule that only looks at the base makes the draft irrelevant: 10 * P(base is even).
    assert expected_turns_won_by_seat0(lambda a, b, c: int(c[1]) % 2 == 0) == 5


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_simple_against_minimal_matches_the_exact_expectation():
    expected = float(expected_turns_won_by_seat0())
    simple = f"node {ROOT / 'shims/js/rpsdraft_runner.js'} {ROOT / 'sample_bots/rpsdraft/simple.js'}"
    minimal = str(ROOT / "sample_bots/rpsdraft/minimal_bot.py")
    proc, result = run_json("rpsdraft", simple, minimal, "--seed", replay_key("20210618"), "--matches", str(MATCHES),
                            "--lifetime", "tournament", timeout=300)
    assert proc.returncode == 0, proc.stderr
    won = [m["seats"][0]["payoff"] for m in result["matches"]]
    assert len(won) == MATCHES
    assert all(m["seats"][0]["payoff"] + m["seats"][1]["payoff"] == 10 for m in result["matches"])
    mean = sum(won) / MATCHES
    sd = math.sqrt(sum((w - mean) ** 2 for w in won) / (MATCHES - 1))
    se = sd / math.sqrt(MATCHES)
    # The test has power: the strategies differ by far more than the tolerance.
    assert abs(expected - 5) > 3 * K_SE * se
    assert abs(mean - expected) < K_SE * se, (mean, expected, se)
