"""The Hold'em sample bots (sample_bots/holdem) in C, Python and JavaScript play
real matches through the arena: real processes and pipes, no mocks.

The C bots are compiled here into a temporary folder with the flags the
Makefile uses, and must compile without a warning. Every hand's
``hand_end`` is read back from ``--trace``: the chips of every hand add up.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from ..conftest import PY, ROOT, replay_key, run_arena

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

BOTS = ROOT / "sample_bots" / "holdem"
C_BOTS = ("rule_bot", "call_bot")
STACK = 400  # the game's default stack


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    out = tmp_path_factory.mktemp("holdem-build")
    for name in C_BOTS:
        proc = subprocess.run(
            ["gcc", "-O2", "-Wall", "-Wextra", "-std=c99", "-o", str(out / name), str(BOTS / f"{name}.c"), "-lm"],
            check=False, capture_output=True, text=True,
        )
        assert proc.returncode == 0 and proc.stderr == "", f"{name}.c:\n{proc.stderr}"
    return out


def six_bots(build) -> list[str]:
    """Two bots in each of C, Python and JavaScript, every one deterministic."""
    return [
        str(build / "rule_bot"),
        f"python3 {BOTS / 'random_bot.py'} --seed 1",
        f"node {BOTS / 'rule_bot.js'}",
        f"{PY} {BOTS / 'equity_bot.py'} --seed 2",  # eval7 lives in the project's venv
        str(build / "call_bot"),
        f"node {BOTS / 'random_bot.js'} --seed 3",
    ]


def play(*args: str) -> tuple[dict, list[dict]]:
    """Run ``arena holdem`` with --json and --trace: its result and the
    messages the arena sent, a notice sent to several seats counted once."""
    proc = run_arena("holdem", *args, "--json", "--trace", timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    assert result["completed"] and result["faults"] == [], result["faults"]
    sent, seen = [], set()
    for line in proc.stderr.splitlines():
        _, arrow, text = line.partition(" -> ")
        if not (arrow and text.startswith("{")) or text in seen:
            continue
        message = json.loads(text)
        if message["type"] == "match_start":
            seen.clear()  # hands are numbered from 0 again in the next match
        seen.add(text)
        sent.append(message)
    return result, sent


def check_hands(sent: list[dict], seats: int, expected: int, cash: bool) -> None:
    """Every hand's profits sum to 0; in cash every hand starts from STACK,
    in freezeout the stacks always hold every chip of the tournament."""
    ends = [m for m in sent if m["type"] == "hand_end"]
    assert len(ends) == expected
    for end in ends:
        assert len(end["profits"]) == seats
        assert sum(end["profits"]) == 0, end
        assert sum(end["stacks"]) == seats * STACK, end
    if cash:  # no ante: every chip is behind or in the blinds
        for start in (m for m in sent if m["type"] == "hand_start"):
            assert sum(start["stacks"]) + sum(start["bets"]) == seats * STACK, start


def test_six_bots_in_three_languages_play_cash(build):
    bots = six_bots(build)
    # two matches in each bot process: a bot must take match_start again
    args = ("--hands", "30", "--seed", replay_key("11"), "--matches", "2", "--lifetime", "tournament")
    result, sent = play(*bots, *args)
    assert result["hands"] == 60
    assert [m["completed"] for m in result["matches"]] == [True, True]
    assert sum(s["payoff"] for s in result["seats"]) == 0  # chips won and lost balance
    for match in result["matches"]:
        assert sum(s["payoff"] for s in match["seats"]) == 0
    assert all(s["ending"] == "exited 0" for s in result["seats"]), result["seats"]
    assert sum(m["type"] == "match_start" for m in sent) == 2 * len(bots)
    check_hands(sent, len(bots), 60, cash=True)
    # every bot is seeded: the same match again (the printed key) is played the same way
    again, _ = play(*bots, *(result["seed"] if a == "11" else a for a in args))
    assert [s["payoff"] for s in again["seats"]] == [s["payoff"] for s in result["seats"]]


def test_six_bots_in_three_languages_play_a_freezeout(build):
    bots = six_bots(build)
    tournaments = 2
    result, sent = play(*bots, "--mode", "freezeout", "--tournaments", str(tournaments), "--seed", replay_key("5"))
    n = len(bots)
    ends = [m for m in sent if m["type"] == "tournament_end"]
    assert len(ends) == tournaments
    for end in ends:
        assert end["places"].count(1) == 1 and all(1 <= p <= n for p in end["places"]), end
        assert sum(end["points"]) == n * (n - 1) / 2  # places n-1 ... 0 share one total
    # the score is the points of every tournament
    assert sum(s["score"] for s in result["seats"]) == tournaments * n * (n - 1) / 2
    check_hands(sent, n, result["hands"], cash=False)
