"""The sample bots, in every language, play complete rounds through the arena."""

from __future__ import annotations

import pytest

from ..conftest import SAMPLE_BOTS, replay_key, run_json

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

BUILD = SAMPLE_BOTS / "build"
BOTS = {
    "c": str(BUILD / "rule_bot"),
    "rust": str(BUILD / "rule_bot_rs"),
    "js": f"node {SAMPLE_BOTS / 'rule_bot.js'}",
    "random": f"{SAMPLE_BOTS / 'random_bot.py'} --seed 4",
    "check_fold": str(SAMPLE_BOTS / "check_fold_bot.py"),
    "equilibrium": f"python3 {SAMPLE_BOTS / 'equilibrium_bot.py'} --seed 9",
}


@pytest.mark.parametrize(
    "lineup",
    [
        ("c", "js", "equilibrium"),
        ("rust", "random", "check_fold"),
        ("equilibrium", "c", "rust"),
        ("js", "check_fold", "random"),
    ],
)
def test_sample_bots_complete_a_round(lineup):
    proc, result = run_json("kuhn3", *(BOTS[b] for b in lineup), "--seed", replay_key("17"), "--hands", "2000")
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] and result["hands"] == 2000 and result["faults"] == []
    assert sum(s["payoff"] for s in result["seats"]) == 0


def test_equilibrium_bots_break_even_against_each_other():
    # Three copies of an equilibrium with a rotating button average 0 a hand;
    # over 3,000 hands each bankroll stays well inside +-4 standard deviations
    # (about 1.2 chips of standard deviation per hand).
    bot, hands = BOTS["equilibrium"], 3000
    assert bot.endswith(" --seed 9")
    # (only the seed changes: the checkout's path may contain a 9 too)
    others = [bot.removesuffix(" 9") + f" {seed}" for seed in (10, 11)]
    proc, result = run_json("kuhn3", bot, *others,
                            "--seed", replay_key("3"), "--hands", str(hands))
    assert proc.returncode == 0, proc.stderr
    for seat in result["seats"]:
        assert abs(seat["payoff"]) < 4 * 1.2 * hands ** 0.5


def test_the_equilibrium_bot_beats_check_fold():
    proc, result = run_json(
        "kuhn3", BOTS["equilibrium"], BOTS["check_fold"], BOTS["check_fold"], "--seed", replay_key("5"), "--hands", "3000"
    )
    assert proc.returncode == 0, proc.stderr
    assert result["seats"][0]["payoff"] > 0
