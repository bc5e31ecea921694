"""ACPC agents play through the arena unchanged: the ACPC package's
example_player (compiled from ../shared/acpc) at real tables, alone and
with a native bot, in the sandbox; and agents that misbehave get faults in
words."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ..conftest import PY, ROOT, clean_env

BAD = ROOT / "tests" / "bots" / "acpc_bad_agent.py"
NATIVE = f"python3 {ROOT / 'sample_bots' / 'holdem' / 'random_bot.py'} --seed 3"


def arena(*args: str, env: dict | None = None, game: str = "holdem") -> tuple[subprocess.CompletedProcess, dict]:
    proc = subprocess.run([PY, "-m", "arena", game, *args, "--json", "--sandbox", "basic"],
                          capture_output=True, text=True, timeout=120, env={**clean_env(), **(env or {})}, cwd=ROOT)
    assert proc.stdout.strip(), proc.stderr[-3000:]
    return proc, json.loads(proc.stdout)


def example(acpc) -> str:
    return f"acpc:{acpc['example_player']} {{gamedef}}"


def test_two_example_players_play_heads_up(acpc):
    proc, result = arena(example(acpc), example(acpc), "--stack", "20000", "--small-blind", "50",
                         "--big-blind", "100", "--hands", "30", "--seed", "1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert result["completed"] and result["faults"] == [], result["faults"]
    assert result["hands"] == 30
    assert sum(s["payoff"] for s in result["seats"]) == 0
    assert any(s["payoff"] for s in result["seats"])


def test_example_players_and_a_native_bot_share_a_table(acpc):
    proc, result = arena(example(acpc), NATIVE, example(acpc), "--stack", "20000", "--small-blind", "50",
                         "--big-blind", "100", "--hands", "15", "--seed", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert result["completed"] and result["faults"] == [], result["faults"]
    assert sum(s["payoff"] for s in result["seats"]) == 0


KUHN3_NATIVE = f"python3 {ROOT / 'sample_bots' / 'kuhn3' / 'random_bot.py'} --seed 4"


def test_kuhn3_with_acpc_agents_in_every_seat(acpc):
    proc, result = arena(example(acpc), example(acpc), example(acpc), "--hands", "40", "--seed", "1", game="kuhn3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert result["completed"] and result["faults"] == [], result["faults"]
    assert result["hands"] == 40


def test_kuhn3_mixing_acpc_agents_and_a_native_bot(acpc):
    proc, result = arena(KUHN3_NATIVE, example(acpc), example(acpc), "--hands", "40", "--seed", "2", game="kuhn3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert result["completed"] and result["faults"] == [], result["faults"]


def _fault(mode: str, *options: str, **env) -> dict:
    proc, result = arena(f"acpc:python3 {BAD} {mode}", NATIVE, "--hands", "3", "--seed", "1", *options, env=env)
    faults = result["faults"]
    assert [f["seat"] for f in faults] == [0], faults
    return faults[0]


def test_an_agent_that_never_connects(acpc):
    fault = _fault("never")
    text = json.dumps(fault)
    assert fault["kind"] == "crashed", fault  # the agent exited, as a bot that exits before its first reply
    assert "without connecting to 127.0.0.1:" in text and "expected a TCP connection" in text, fault


def test_an_agent_that_does_not_connect_in_time(acpc):
    fault = _fault("silent", "--startup-timeout", "2", ARENA_ACPC_CONNECT_TIMEOUT="0.5")
    assert fault["kind"] == "timeout", fault  # as a bot that never answers
    assert "did not connect to 127.0.0.1:" in json.dumps(fault) and "within 0.5 s" in json.dumps(fault), fault


def test_an_agent_that_sends_an_invalid_line(acpc):
    fault = _fault("invalid")
    text = json.dumps(fault)
    assert "the action 'x'" in text and "expected the state it was sent followed by :f, :c or :r<N>" in text, fault


def test_an_agent_that_answers_another_state(acpc):
    fault = _fault("other")
    assert "answered another state: sent 'MATCHSTATE:9:" in json.dumps(fault), fault


def test_an_agent_that_closes_the_connection(acpc):
    fault = _fault("close")
    assert fault["kind"] == "disconnected", fault  # as a bot that hangs up
    assert "closed the connection" in json.dumps(fault), fault


def test_acpc_cannot_express_antes_or_freezeouts(acpc):
    # checked with the command line, before anything starts (arena._plan, what `arena play` calls first)
    from arena._checks import UsageError
    from arena._plan import plan_play

    for game, raw, why in (("holdem", {"ante": 1}, "no antes"), ("holdem", {"mode": "freezeout"}, "freezeout"),
                           ("kuhn3", {"max_bet": 3}, "a bet to 2")):
        bots = [example(acpc)] * 2 + ([KUHN3_NATIVE] if game == "kuhn3" else [])
        with pytest.raises(UsageError, match=f"cannot play this match: .*{why}"):
            plan_play(game, bots, [raw], keys=True, seed=1, lifetime="match", timeout=1.0, startup_timeout=10.0,
                      budget=None, log_dir=None)
