"""TwoCardDraw rules, strategy files and the exact best response (engine only)."""

from __future__ import annotations

import importlib.util
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import IllegalAction
from arena import load_game
from games.twocarddraw import (
    Evaluator,
    Hand,
    StrategyError,
    TwoCardDrawParams,
    best_response_profit,
    compare,
    format_strategy,
    generate,
    parse_strategy,
    random_strategy,
    strategy_value,
)
from games.twocarddraw._solve import GENERATOR_EPS, noisy
from games.twocarddraw._strategy import allowed, draw_keys, round1_keys, round2_keys

from ..conftest import ROOT

BOTS = ROOT / "sample_bots" / "twocarddraw"


# -- hands ----------------------------------------------------------------------


def test_pairs_beat_non_pairs_and_high_cards_decide():
    assert compare((0, 0), (3, 4)) == 1  # any pair beats two different cards
    assert compare((2, 2), (1, 1)) == 1  # the higher pair wins
    assert compare((0, 4), (3, 3)) == -1
    assert compare((0, 4), (3, 2)) == 1  # the highest card first
    assert compare((1, 4), (0, 4)) == 1  # then the other card
    assert compare((1, 3), (3, 1)) == 0  # the same hand ties


# -- betting ---------------------------------------------------------------------

# The seed's table of betting sequences (first, second, first, ...), how each
# ends and what the first player wins when the second one folds or vice versa.
SEQUENCES = [
    (["check", "check"], None),
    (["check", "bet", "fold"], 0),
    (["check", "bet", "call"], None),
    (["check", "bet", "raise", "fold"], 1),
    (["check", "bet", "raise", "call"], None),
    (["check", "bet", "raise", "raise", "fold"], 0),
    (["check", "bet", "raise", "raise", "call"], None),
    (["bet", "fold"], 1),
    (["bet", "call"], None),
    (["bet", "raise", "fold"], 0),
    (["bet", "raise", "call"], None),
    (["bet", "raise", "raise", "fold"], 1),
    (["bet", "raise", "raise", "call"], None),
]


@pytest.mark.parametrize("actions,folder", SEQUENCES)
def test_the_seeds_betting_sequences(actions, folder):
    hand = Hand(2, 4, ((0, 1), (2, 3)))
    for i, action in enumerate(actions):
        hand.act(i % 2, action)
    if folder is None:
        assert hand.phase == "draw" and hand.bets1 == actions.count("bet") + actions.count("raise")
    else:
        assert hand.phase == "over" and hand.result.folded == folder
        # the folder loses its ante and what it had put in: all the bets made
        # but the last, which it did not call
        bets = actions.count("bet") + actions.count("raise")
        lost = 1 + 2 * (bets - 1)
        assert hand.result.profit[folder] == -lost
        assert sum(hand.result.profit) == 0 and not hand.result.showdown


def test_at_most_three_bets_a_round():
    hand = Hand(1, 2, ((0, 1), (2, 3)))
    for i, a in enumerate(["check", "bet", "raise", "raise"]):
        hand.act(i % 2, a)
    assert hand.options() == ("fold", "call")
    with pytest.raises(IllegalAction, match="no raise after 3 bets"):
        hand.act(0, "raise")


def test_fold_when_checking_is_free_is_a_check():
    hand = Hand(1, 2, ((0, 1), (2, 3)))
    assert hand.act(0, "fold") == "check"
    assert hand.act(1, "fold") == "check"
    assert hand.phase == "draw" and hand.bets1 == 0


@pytest.mark.parametrize("setup,action,words", [
    ([], "call", "no bet to call"),
    ([], "raise", "no bet to raise"),
    (["bet"], "check", "a bet to answer"),
    (["bet"], "bet", "a bet to answer"),
    ([], "allin", "not an action"),
])
def test_illegal_actions_say_why(setup, action, words):
    hand = Hand(1, 2, ((0, 1), (2, 3)))
    for i, a in enumerate(setup):
        hand.act(i % 2, a)
    with pytest.raises(IllegalAction, match=words):
        hand.act(len(setup) % 2, action)


def test_out_of_turn_is_illegal():
    hand = Hand(1, 2, ((0, 1), (2, 3)))
    with pytest.raises(IllegalAction, match="first player's turn"):
        hand.act(1, "check")


def test_draw_order_and_drawing_one_replaces_the_lower_card():
    hand = Hand(1, 2, ((1, 3), (0, 2)))
    hand.act(0, "check")
    hand.act(1, "check")
    with pytest.raises(IllegalAction, match="turn to draw"):
        hand.draw(1, 0, [])
    assert hand.draw(0, 1, [0]) == (0, 3)  # the 1 went, the 3 stayed
    assert hand.draw(1, 2, [4, 4]) == (4, 4)
    assert hand.phase == "round2" and hand.to_act == 0
    with pytest.raises(IllegalAction, match="no drawing now"):
        hand.draw(0, 0, [])


def test_draw_count_is_checked():
    hand = Hand(1, 2, ((1, 3), (0, 2)))
    hand.act(0, "check")
    hand.act(1, "check")
    with pytest.raises(IllegalAction, match="0, 1 or 2"):
        hand.draw(0, 3, [1, 2, 3])


def test_showdown_pays_the_pot_and_ties_split():
    hand = Hand(2, 5, ((4, 4), (0, 1)))
    for pos, a in [(0, "bet"), (1, "call")]:
        hand.act(pos, a)
    hand.draw(0, 0, [])
    hand.draw(1, 0, [])
    hand.act(0, "bet")
    hand.act(1, "raise")
    hand.act(0, "call")
    # ante 1 + one bet of 2 + two bets of 5
    assert hand.result.profit == (13, -13) and hand.result.showdown
    tie = Hand(2, 5, ((1, 3), (3, 1)))
    tie.act(0, "check")
    tie.act(1, "check")
    tie.draw(0, 0, [])
    tie.draw(1, 0, [])
    tie.act(0, "check")
    tie.act(1, "check")
    assert tie.result.profit == (0, 0)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5), st.data())
def test_random_hands_are_zero_sum_and_bounded(bet1, data):
    bet2 = data.draw(st.integers(bet1, 3 * bet1))
    cards = data.draw(st.tuples(*[st.integers(0, 4)] * 4))
    hand = Hand(bet1, bet2, ((cards[0], cards[1]), (cards[2], cards[3])))
    while hand.phase != "over":
        if hand.phase == "draw":
            n = data.draw(st.integers(0, 2))
            hand.draw(hand.to_act, n, [data.draw(st.integers(0, 4)) for _ in range(n)])
        else:
            hand.act(hand.to_act, data.draw(st.sampled_from(hand.options())))
    r = hand.result
    assert sum(r.profit) == 0
    assert abs(r.profit[0]) <= 1 + 3 * bet1 + 3 * bet2
    if r.showdown:
        assert (r.profit[0] > 0) == (compare(*r.final) > 0)
        assert (r.profit[0] == 0) == (compare(*r.final) == 0)


# -- parameters and plugin --------------------------------------------------------


def test_params_defaults_and_ranges():
    p = TwoCardDrawParams()
    assert p.hands == 10000 and p.stakes() == (2, 4) and p.strategy is None
    assert TwoCardDrawParams(bet1=3).stakes() == (3, 6)
    with pytest.raises(ValueError):
        TwoCardDrawParams(bet1=2, bet2=7)  # above 3*bet1
    with pytest.raises(ValueError):
        TwoCardDrawParams(bet1=6)


def test_aggregate_is_the_mean():
    plugin = load_game("twocarddraw")
    assert plugin.aggregate([[10000.0], [9000.0], [11600.0]]) == [10200.0]
    assert plugin.aggregate([[1.0, 3.0], [3.0, 5.0]]) == [2.0, 4.0]


def test_strategy_stakes_must_agree(tmp_path):
    plugin = load_game("twocarddraw")
    path = tmp_path / "s.txt"
    path.write_text(format_strategy(random_strategy(1, 2, random.Random(1))))
    plugin.check_params(plugin.Params(strategy=str(path)))
    with pytest.raises(StrategyError, match="bet1=3 was given"):
        plugin.check_params(plugin.Params(strategy=str(path), bet1=3, bet2=3))
    with pytest.raises(StrategyError, match="cannot read"):
        plugin.check_params(plugin.Params(strategy=str(tmp_path / "nope.txt")))


# -- strategy files ----------------------------------------------------------------


def test_format_and_parse_round_trip():
    s = random_strategy(2, 5, random.Random(3))
    text = format_strategy(s, digits=6)
    back = parse_strategy(text)
    assert (back.bet1, back.bet2) == (2, 5)
    assert len(text.splitlines()) == 1 + 60 + 315 + 3780
    for key, dist in s.round2.items():
        assert back.round2[key] == pytest.approx(dist, abs=1e-6)
    assert parse_strategy(format_strategy(back)) == back


@pytest.mark.parametrize("mutate,words", [
    (lambda lines: lines[:-1], "missing"),
    (lambda lines: lines + [lines[-1]], "given twice"),
    (lambda lines: ["2 9"] + lines[1:], "bet2 must be"),
    (lambda lines: ["two four"] + lines[1:], "first line"),
    (lambda lines: lines[:1] + ["ROUND1 0 1 0 0.5 0.6 0"] + lines[2:], "sum to"),
    (lambda lines: lines[:1] + ["ROUND1 0 1 9 0 1 0"] + lines[2:], "not a situation"),
    (lambda lines: lines[:1] + ["ROUND3 0 1 0 0 1 0"] + lines[2:], "unknown line kind"),
    (lambda lines: lines[:1] + ["ROUND1 0 1 0 0 1"] + lines[2:], "has 6 numbers"),
])
def test_bad_strategy_files_are_refused_with_a_reason(mutate, words):
    lines = format_strategy(random_strategy(2, 4, random.Random(1))).splitlines()
    with pytest.raises(StrategyError, match=words):
        parse_strategy("\n".join(mutate(lines)))


def test_impossible_actions_are_played_as_call():
    lines = format_strategy(random_strategy(2, 4, random.Random(1))).splitlines()
    i = lines.index(next(l for l in lines if l.startswith("ROUND1 0 1 0 ")))
    lines[i] = "ROUND1 0 1 0 0.5 0.25 0.25"  # fold with nothing to call
    j = lines.index(next(l for l in lines if l.startswith("ROUND1 0 1 3 ")))
    lines[j] = "ROUND1 0 1 3 0.5 0.25 0.25"  # raise after 3 bets
    s = parse_strategy("\n".join(lines))
    assert s.round1[(0, 1, 0)] == (0.0, 0.75, 0.25)
    assert s.round1[(0, 1, 3)] == (0.5, 0.5, 0.0)


def test_generated_strategies_keep_the_seeds_constraints():
    s = generate(2, 4, 300, random.Random(5))
    for kind, table, keys in (("ROUND1", s.round1, round1_keys()), ("DRAW", s.draw, draw_keys()),
                              ("ROUND2", s.round2, round2_keys())):
        for key in keys:
            dist = table[key]
            assert sum(dist) == pytest.approx(1)
            for ok, p in zip(allowed(kind, key), dist):
                assert ok or p == 0, (kind, key, dist)
    assert s.draw[(4, 4, 0, 0, 0)] == (1.0, 0.0, 0.0)  # never exchange with two 4s
    assert s.round2[(4, 4, 1, 0, 2, 0, 0)][2] == 1.0  # always raise with two 4s in round 2
    assert s.draw[(1, 1, 0, 0, 0)][1] == 0  # never draw one holding a pair
    assert s.draw[(2, 4, 0, 0, 0)][2] == 0  # never draw two holding a 4


def test_generation_is_deterministic_and_only_improves():
    a = generate(1, 2, 400, random.Random(9))
    b = generate(1, 2, 400, random.Random(9))
    assert a == b
    start = random_strategy(1, 2, random.Random(9))
    almost = noisy(GENERATOR_EPS)
    assert Evaluator(a, almost).value <= Evaluator(start, almost).value


def test_incremental_evaluation_matches_a_fresh_one():
    s = random_strategy(2, 4, random.Random(11))
    ev = Evaluator(s)
    rng = random.Random(12)
    for kind, key in [("ROUND2", (1, 3, 1, 2, 1, 0, 1)), ("DRAW", (0, 4, 2, 1, 0)), ("ROUND1", (2, 2, 1)),
                      ("ROUND2", (4, 4, 0, 0, 2, 0, 0))]:
        dist = tuple(rng.random() for _ in range(3))
        dist = tuple(x / sum(dist) for x in dist)
        if kind == "ROUND1" and key[2] == 0 or kind == "ROUND2" and key[3] == 0:
            dist = (0.0, dist[0] + dist[1], dist[2])
        value = ev.try_change(kind, key, dist)
        table = {"ROUND1": s.round1, "DRAW": s.draw, "ROUND2": s.round2}[kind]
        table[key] = dist
        assert value == pytest.approx(Evaluator(s).value, abs=1e-12)
    before = ev.value
    ev.try_change("ROUND2", (0, 0, 0, 0, 0, 0, 0), (0.0, 0.0, 1.0))
    ev.reject()
    assert ev.value == before == pytest.approx(Evaluator(s).value, abs=1e-12)


def _sample_solver():
    spec = importlib.util.spec_from_file_location("tcd_best_response", BOTS / "best_response.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Solver


@pytest.mark.parametrize("seed,stakes", [(1, (2, 4)), (2, (1, 3)), (3, (5, 5))])
def test_two_independent_best_responses_agree(seed, stakes, tmp_path):
    # The sample bot's solver is a separate, plainly recursive implementation.
    s = generate(*stakes, 200, random.Random(seed))
    path = tmp_path / "s.txt"
    path.write_text(format_strategy(s, digits=8))
    exact = best_response_profit(parse_strategy(path.read_text()))
    assert _sample_solver()(str(path)).solve() == pytest.approx(exact, abs=1e-12)
    assert strategy_value(parse_strategy(path.read_text())) == -exact


def test_a_random_strategy_is_very_bad_and_climbing_helps():
    s = random_strategy(2, 4, random.Random(4))
    assert best_response_profit(s) > 1  # the seed: "an extremely low value"
    assert strategy_value(generate(2, 4, 3000, random.Random(4))) > strategy_value(s)
