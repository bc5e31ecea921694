"""vonneumann with real processes: misbehaving bots, the C shim, the sample bots,
and a statistical check of a long match against an expectation computed here."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import random
import shutil
import subprocess
from bisect import bisect_right

import pytest
import trio

from arena import BotSpec, MatchSettings, run_match
from arena.play._match import run_series
from arena import load_game
from games.vonneumann import Phase, VonNeumannMatch, VonNeumannParams
from protocols.vonneumann import seeded_deal

from ..conftest import PY, ROOT, processes_with, python_bot, replay_key, run_json

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

PLUGIN = load_game("vonneumann")
BOTS = ROOT / "sample_bots" / "vonneumann"
SHIM = ROOT / "shims" / "c"
REFERENCE = f"{PY} {BOTS / 'reference_bot.py'}"
TABLE = BOTS / "reference-strategy.csv"

# An entry that reports what it was given, keeps a counter in f[0] and
# prints on stdout (which the shim must keep off the protocol stream).
PROBE = r"""
int a(const Bot *bot) {
    ((Bot *)bot)->f[0] += 1;
    fprintf(stderr, "A %a %a %ld %ld\n", (double)bot->card, (double)bot->opponentsPreviousCard,
            bot->money, bot->opponentsMoney);
    printf("chatter on stdout\n");
    return -(int)bot->f[0];  /* always a pass, numbered */
}
int b(const Bot *bot, const int aBet) {
    fprintf(stderr, "B %a %d %ld %d\n", (double)bot->card, aBet, bot->money, bot->a && bot->b);
    return aBet % 2;
}
"""


def compile_entry(source, out, include_header=True):
    flags = ["-include", "vonneumann.h"] if include_header else []
    subprocess.run(
        ["gcc", "-O2", "-Wall", "-Wextra", "-std=c99", "-I", str(SHIM), *flags, "-o", str(out),
         str(SHIM / "vonneumann_main.c"), str(source), "-lm"],
        check=True, capture_output=True, text=True,
    )
    return str(out)


@pytest.fixture(scope="module")
def c_bots(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    build = tmp_path_factory.mktemp("vonneumann-build")
    bots = {name: compile_entry(BOTS / f"{name}.c", build / name) for name in ("naive", "kuhn3", "likeme")}
    (build / "probe.c").write_text(PROBE)
    bots["probe"] = compile_entry(build / "probe.c", build / "probe")
    return bots


def play(specs, params, seed, **settings):
    return trio.run(run_match, PLUGIN, [BotSpec.parse(s) for s in specs], params, seed, MatchSettings(**settings))


# -- misbehaving bots ---------------------------------------------------------------

CALL_MODES = {"call_not_bool", "call_wrong_type"}
CASES = {
    "garbage": ("malformed_reply", "not JSON"),
    "not_json": ("malformed_reply", "not JSON"),
    "wrong_type": ("malformed_reply", "expected a reply of type 'bet'"),
    "illegal_amount": ("illegal_action", "whole dollars"),
    "nan_amount": ("malformed_reply", "finite number"),
    "string_amount": ("malformed_reply", "amount"),
    "call_not_bool": ("malformed_reply", "valid boolean"),
    "call_wrong_type": ("malformed_reply", "expected a reply of type 'call'"),
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
    good = python_bot("misbehave_vonneumann.py", "none", tag)
    bad = python_bot("misbehave_vonneumann.py", mode, tag)
    bots = [good, good]
    bots[seat] = bad
    proc, result = run_json("vonneumann", *bots, "--seed", replay_key("5"), "--sessions", "1", "--timeout", "0.5")

    assert proc.returncode == 1, proc.stderr
    assert result["completed"] is False
    (fault,) = result["faults"]
    assert (fault["kind"], fault["seat"], fault["bot"]) == (kind, seat, bad)
    assert words in f"{fault['detail']} {fault['received']}"
    assert fault["expected"]
    # Seat 0 is A in game 0, seat 1 in game 1; the call modes misbehave as B.
    assert fault["hand"] == (1 - seat if mode in CALL_MODES else seat)
    assert f"seat {seat}" in proc.stderr and kind in proc.stderr
    assert processes_with(tag) == []


def test_the_misbehaving_bot_plays_a_whole_match_when_told_to_behave(tag):
    good = python_bot("misbehave_vonneumann.py", "none", tag)
    proc, result = run_json("vonneumann", good, good, "--seed", replay_key("5"), "--sessions", "3")
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] and result["faults"] == []
    assert processes_with(tag) == []


# -- the C shim -------------------------------------------------------------------

def test_the_shim_fills_the_bot_struct_and_keeps_it_for_the_process_life(c_bots, tmp_path):
    sent = []

    def trace(seat, direction, text):
        if seat == 0:
            sent.extend((direction, json.loads(line)) for line in text.splitlines())

    params = VonNeumannParams(sessions=2, games_per_session=5)
    specs = [BotSpec.parse(c_bots["probe"]), BotSpec.parse(c_bots["naive"])]
    settings = MatchSettings(trace=trace, log_dir=tmp_path)
    results = trio.run(lambda: run_series(PLUGIN, specs, [(params, 1), (params, 2)], settings,
                                          lifetime="tournament"))
    assert [r.completed for r in results] == [True, True]

    a_turns = [m for d, m in sent if d == "->" and m["type"] == "a_turn"]
    b_turns = [m for d, m in sent if d == "->" and m["type"] == "b_turn"]
    bets = [m["amount"] for d, m in sent if d == "<-" and m["type"] == "bet"]
    calls = [m["call"] for d, m in sent if d == "<-" and m["type"] == "call"]
    # f[0] counted every a() call of both matches: one process, one Bot.
    assert bets == [-(i + 1) for i in range(len(a_turns))] and len(a_turns) >= 10
    assert calls == [m["bet"] % 2 == 1 for m in b_turns]

    log = (tmp_path / "seat0.stderr.log").read_text().splitlines()
    seen_a = [line.split() for line in log if line.startswith("A ")]
    seen_b = [line.split() for line in log if line.startswith("B ")]
    assert "chatter on stdout" in log  # sent to stderr, not to the arena
    assert len(seen_a) == len(a_turns) and len(seen_b) == len(b_turns)
    for (_, card, prev, money, opp), m in zip(seen_a, a_turns):
        assert float.fromhex(card) == m["card"]  # bit for bit
        assert float.fromhex(prev) == m["opponent_previous_card"]
        assert (int(money), int(opp)) == (m["money"], m["opponent_money"])
    for (_, card, bet, money, pointers), m in zip(seen_b, b_turns):
        assert (float.fromhex(card), int(bet), int(money)) == (m["card"], m["bet"], m["money"])
        assert pointers == "1"  # bot->a and bot->b are set, as the seed's controller set them


def test_an_entry_without_includes_compiles_with_include_flag(c_bots, tmp_path):
    src = tmp_path / "bare.c"
    src.write_text("int a(const Bot *bot) { return bot->card > .5f ? 50 : 0; }\n"
                   "int b(const Bot *bot, const int aBet) { return aBet < 20 || bot->card > .7f; }\n")
    exe = compile_entry(src, tmp_path / "bare")
    result = play([exe, c_bots["kuhn3"]], VonNeumannParams(sessions=3), 4)
    assert result.completed and result.faults == []


# -- the sample bots ------------------------------------------------------------------

@pytest.mark.parametrize("pair", [("naive", "reference"), ("kuhn3", "likeme"), ("reference", "likeme"),
                                  ("likeme", "naive")])
def test_sample_bots_complete_a_match(c_bots, pair):
    bots = {**c_bots, "reference": REFERENCE}
    result = play([bots[p] for p in pair], VonNeumannParams(sessions=20), 11)
    assert result.completed and result.faults == [], result.faults
    assert sum(s.payoff for s in result.seats) == 0
    assert math.isclose(sum(s.score for s in result.seats), 0.0, abs_tol=1e-9)


def load_reference_bot():
    spec = importlib.util.spec_from_file_location("vn_reference_bot", BOTS / "reference_bot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_table():
    with open(TABLE) as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def test_the_reference_bot_solves_to_the_tabulated_equilibrium():
    bot = load_reference_bot()
    t, v, edges = bot.equilibrium(10, 50)
    for row in read_table():
        s = int(row["bet_dollars"])
        got = (v[s - 1], v[s], edges[s], edges[s - 1], t[s])
        want = (row["value_lo"], row["value_hi"], row["bluff_lo"], row["bluff_hi"], row["B_calls_if_y_above"])
        assert got == pytest.approx(want, abs=2e-6)
    # With a short stack it re-solves: fewer sizes, every card maps to a bet within the cap.
    for cap in (1, 7, 20):
        assert {bot.a_bet(10, cap, k / 1000) for k in range(1000)} == set(range(cap + 1))


# -- statistics ----------------------------------------------------------------------

ANTE = 10


def table_strategy():
    """A's bet for a card, and B's call threshold per bet, from the tabulated equilibrium."""
    rows = read_table()
    pieces = sorted([(r["value_lo"], int(r["bet_dollars"])) for r in rows]
                    + [(r["bluff_lo"], int(r["bet_dollars"])) for r in rows]
                    + [(rows[0]["bluff_hi"], 0)])  # the passing interval
    starts = [p[0] for p in pieces]

    def bet(x):
        return pieces[bisect_right(starts, x) - 1][1]

    return bet, {int(r["bet_dollars"]): r["B_calls_if_y_above"] for r in rows}


def naive_bet(x):
    return int((x - 0.5) * 50)


def a_gain_moments(bet_of, threshold_of, n=100_000):
    """Mean and second moment of A's gain in one game, B's card integrated in closed form."""
    m1 = m2 = 0.0
    for i in range(n):  # midpoint rule over A's card
        x = (i + 0.5) / n
        s = bet_of(x)
        if s <= 0:  # a pass: showdown for the antes
            m1 += ANTE * (2 * x - 1)
            m2 += ANTE**2
            continue
        t, w = threshold_of(s), ANTE + s  # B folds when y <= t, else a showdown for w
        m1 += ANTE * t + w * (max(0.0, x - t) - (1 - max(x, t)))
        m2 += ANTE**2 * t + w * w * (1 - t)
    return m1 / n, m2 / n


@pytest.fixture(scope="module")
def expectations():
    ref_bet, ref_threshold = table_strategy()
    ref_vs_naive = a_gain_moments(ref_bet, lambda s: 0.5)  # naive B calls above 0.5
    naive_vs_ref = a_gain_moments(naive_bet, lambda s: ref_threshold[s])
    return ref_vs_naive, naive_vs_ref


def test_engine_pays_what_the_integral_says(expectations):
    # Engine only, many games: the tabulated A against a naive B and the other way
    # round; each seat's mean gain as A within 4 standard errors of the integral.
    ref_bet, ref_threshold = table_strategy()
    games = 200_000
    m = VonNeumannMatch(VonNeumannParams(stack=10**9, games_per_session=games, sessions=1))
    deal = seeded_deal(random.Random(20260))
    gains = ([], [])
    while m.phase is not Phase.OVER:
        m.apply_deal(*deal())
        x, y = m.cards
        a = m.a_seat
        m.apply_bet(ref_bet(x) if a == 0 else naive_bet(x))
        if m.phase is Phase.B_TO_ACT:
            m.apply_call(y > 0.5 if a == 0 else y > ref_threshold[m.bet])
        last = m.results[-1]
        gains[a].append(last.amount if last.winner == a else -last.amount)
    for seat, (mean, second) in enumerate(expectations):
        n = len(gains[seat])
        se = math.sqrt((second - mean**2) / n)
        observed = sum(gains[seat]) / n
        assert abs(observed - mean) < 4 * se, (seat, observed, mean, se)
    # The equilibrium A gains its game value (1.3993 a game) against this B too.
    assert expectations[0][0] == pytest.approx(1.3993, abs=2e-3)


def test_reference_bot_against_naive_over_a_long_match(c_bots, expectations):
    # Stacks so deep that no bet is cut and no session ends early: every session is
    # 50 games, 25 with each bot as A, and the score is the money won / sqrt(50).
    sessions = 400
    (m1, s1), (m2, s2) = expectations
    per_session = 25 * (m1 - m2)
    var_session = 25 * ((s1 - m1**2) + (s2 - m2**2))
    expected = sessions * per_session / math.sqrt(50)
    se = math.sqrt(sessions * var_session / 50)
    params = VonNeumannParams(stack=100_000, sessions=sessions)
    result = play([REFERENCE, c_bots["naive"]], params, 7, timeout=5.0)
    assert result.completed, result.faults
    assert result.hands == sessions * 50
    observed = result.seats[0].score
    assert abs(observed - expected) < 4 * se, (observed, expected, se)
