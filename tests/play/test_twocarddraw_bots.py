"""TwoCardDraw with real bot processes: statistics, shim, sample bots, faults, CLI."""

from __future__ import annotations

import math
import random
import shutil

import pytest
import trio

from arena import BotSpec, MatchSettings, run_match
from arena.play._match import run_series
from arena import load_game
from games.twocarddraw import best_response_profit, parse_strategy

from ..conftest import PY, ROOT, processes_with, python_bot, replay_key, run_arena, run_json

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

BOTS = ROOT / "sample_bots" / "twocarddraw"
RUNNER = ROOT / "shims" / "python" / "twocarddraw_runner.py"
PLUGIN = load_game("twocarddraw")
#: how many standard errors a measured mean may stray from the exact one
K_SE = 4.0


def shim_bot(entry: str, *args: str) -> str:
    return " ".join([PY, str(RUNNER), str(BOTS / entry), *args])


def play(commands: list[str], params, seed: int):
    dealer = PLUGIN.open_dialogue(params, random.Random(seed), commands, 0)
    result = trio.run(lambda: run_match(PLUGIN, [BotSpec.parse(c) for c in commands], params, seed,
                                        MatchSettings(timeout=2.0), dialogue=dealer))
    assert result.completed, result.faults
    return result, dealer


def mean_and_se(dealer, seat: int) -> tuple[float, float]:
    n = dealer.played
    mean = dealer.money[seat] / n
    var = dealer.sum_squares[seat] / n - mean**2
    return mean, math.sqrt(var / n)


def test_best_response_bot_earns_the_computed_value():
    path = BOTS / "strategy_1_3.txt"
    exact = best_response_profit(parse_strategy(path.read_text()))
    params = PLUGIN.Params(strategy=str(path), hands=5000)
    result, dealer = play([shim_bot("best_response.py", str(path))], params, seed=20240)
    mean, se = mean_and_se(dealer, 0)
    assert abs(mean - exact) < K_SE * se, (mean, exact, se)
    assert result.seats[0].score == max(0, dealer.money[0] + 5000)


# -- bot against bot: pair_of_fours (through the shim) vs the test bot's fixed policy --


def _exact_pair_of_fours_vs_caller(bet1: int, bet2: int) -> float:
    """Expected profit per hand of pair_of_fours against the test bot's policy,
    by enumerating every deal and draw (independent of the engine).

    Neither bot looks at its position or the other's draw, so both positions
    give the same expectation. pair_of_fours bets only with two 4s and the
    test bot never bets, calls in round 1 and, in round 2, calls with a pair
    and folds without one.
    """
    cards = range(5)

    def strength(a, b):
        lo, hi = min(a, b), max(a, b)
        return (1, lo, 0) if lo == hi else (0, hi, lo)

    def draws(hand, n):  # list of (new hand, chance)
        hi = max(hand)
        if n == 0:
            return [(hand, 1.0)]
        if n == 1:
            return [((hi, c), 0.2) for c in cards]
        return [((a, b), 0.04) for a in cards for b in cards]

    total = 0.0
    for a in ((x, y) for x in cards for y in cards):
        for b in ((x, y) for x in cards for y in cards):
            bets1 = 1 if a == (4, 4) else 0
            na = 0 if a[0] == a[1] else 1
            nb = 0 if b[0] == b[1] else (1 if max(b) >= 3 else 2)
            base = 1 + bets1 * bet1
            for fa, pa in draws(a, na):
                for fb, pb in draws(b, nb):
                    p = pa * pb / 625
                    sa, sb = strength(*fa), strength(*fb)
                    sign = (sa > sb) - (sa < sb)
                    if fa[0] == fa[1] == 4:  # pair_of_fours bets in round 2
                        if fb[0] != fb[1]:
                            total += p * base  # the test bot folds
                        else:
                            total += p * sign * (base + bet2)
                    else:
                        total += p * sign * base
    return total


def test_bot_against_bot_matches_the_exact_expectation(tag):
    params = PLUGIN.Params(hands=4000, bet1=3, bet2=9)
    exact = _exact_pair_of_fours_vs_caller(3, 9)
    commands = [shim_bot("pair_of_fours.py", tag), python_bot("misbehave_twocarddraw.py", "none", tag)]
    result, dealer = play(commands, params, seed=77)
    mean, se = mean_and_se(dealer, 0)
    assert abs(mean - exact) < K_SE * se, (mean, exact, se)
    assert dealer.money[0] == -dealer.money[1]
    assert processes_with(tag) == []


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_node_bot_plays_both_positions(tag):
    commands = [f"node {BOTS / 'pair_of_fours.js'} {tag}", python_bot("misbehave_twocarddraw.py", "none", tag)]
    result, dealer = play(commands, PLUGIN.Params(hands=300), seed=3)
    assert result.hands == 300
    assert processes_with(tag) == []


def test_one_shim_instance_serves_a_whole_series():
    # With --lifetime tournament the same process (and so the same instance)
    # plays every match; each match starts with init again.
    path = BOTS / "strategy_2_4.txt"
    params = PLUGIN.Params(strategy=str(path), hands=50)
    results = trio.run(lambda: run_series(
        PLUGIN, [BotSpec.parse(shim_bot("pair_of_fours.py"))], [(params, 1), (params, 2), (params, 3)],
        MatchSettings(timeout=2.0), lifetime="tournament"))
    assert [r.completed for r in results] == [True, True, True]
    scores = [[s.score for s in r.seats] for r in results]
    assert PLUGIN.aggregate(scores) == [sum(s[0] for s in scores) / 3]


# -- the misbehaving-bot corpus ---------------------------------------------------

CASES = {
    "garbage": ("malformed_reply", "not JSON"),
    "not_json": ("malformed_reply", "not JSON"),
    "wrong_type": ("malformed_reply", "got type 'ready'"),
    "illegal": ("illegal_action", "no bet to call"),
    "silent": ("timeout", "no reply within 0.5 s"),
    "slow": ("timeout", "no reply within 0.5 s"),
    "exit_mid": ("disconnected", "exited (code 0)"),
    "crash": ("crashed", "exited with code 3"),
    "signal": ("crashed", "killed by SIGSEGV"),
    "close_stdout": ("disconnected", "closed its stdout"),
    "huge_line": ("malformed_reply", "without a newline"),
    "bad_utf8": ("malformed_reply", "not valid UTF-8"),
}


@pytest.mark.parametrize("mode", sorted(CASES))
def test_fault_is_typed_and_names_the_seat(mode, tag):
    kind, words = CASES[mode]
    seat = sorted(CASES).index(mode) % 2
    good = python_bot("misbehave_twocarddraw.py", "none", tag)
    bad = python_bot("misbehave_twocarddraw.py", mode, tag)
    bots = [good, good]
    bots[seat] = bad
    proc, result = run_json("twocarddraw", *bots, "--seed", replay_key("5"), "--hands", "3", "--timeout", "0.5")
    assert proc.returncode == 1, proc.stderr
    assert result["completed"] is False
    (fault,) = result["faults"]
    assert fault["kind"] == kind
    assert fault["seat"] == seat and fault["bot"] == bad
    assert words in f"{fault['detail']} {fault['received']}"
    assert fault["expected"]
    assert fault["hand"] == 0
    assert processes_with(tag) == []


def test_a_fault_against_a_strategy_names_seat_0(tag):
    bad = python_bot("misbehave_twocarddraw.py", "illegal", tag)
    proc, result = run_json("twocarddraw", bad, "--strategy", str(BOTS / "strategy_2_4.txt"), "--hands", "3",
                            "--seed", replay_key("1"))
    assert proc.returncode == 1
    (fault,) = result["faults"]
    assert fault["seat"] == 0 and fault["kind"] == "illegal_action"
    assert processes_with(tag) == []


# -- the strategy tools --------------------------------------------------------------


def test_cli_value_and_generate(tmp_path):
    out = tmp_path / "s.txt"
    proc = run_arena("strategy", "generate", "--bet1", "2", "--bet2", "5", "--iterations", "300",
                     "--seed", "4", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    printed = float(proc.stdout.strip())
    exact = -best_response_profit(parse_strategy(out.read_text()))
    assert printed == pytest.approx(exact, abs=1e-8)
    proc = run_arena("strategy", "value", str(out))
    assert proc.returncode == 0 and float(proc.stdout.strip()) == printed
    again = tmp_path / "t.txt"
    run_arena("strategy", "generate", "--bet1", "2", "--bet2", "5", "--iterations", "300", "--seed", "4",
              "-o", str(again))
    assert again.read_text() == out.read_text()  # a seed makes it reproducible


def test_cli_value_refuses_a_bad_file(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("2 4\nROUND1 0 0 0 0 1 0\n")
    proc = run_arena("strategy", "value", str(bad))
    assert proc.returncode == 2 and "missing" in proc.stderr
