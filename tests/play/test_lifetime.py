"""--lifetime tournament keeps one process per bot; the default starts fresh ones."""

from __future__ import annotations

import json

import pytest

from ..conftest import TEST_BOTS, replay_key, run_arena, run_json

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

PID_BOT = str(TEST_BOTS / "pid_bot.py")


@pytest.mark.parametrize("lifetime, processes_per_bot", [("tournament", 1), ("match", 4)])
def test_series_lifetime(lifetime, processes_per_bot, tmp_path):
    proc, result = run_json("rpsdraft", PID_BOT, f"{PID_BOT} second", "--matches", "4", "--seed", replay_key("1"),
                            "--lifetime", lifetime, "--log-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] and len(result["matches"]) == 4
    seen = [set(), set()]
    for log in tmp_path.rglob("seat*.stderr.log"):
        seen[int(log.name[4])] |= {line.split()[1] for line in log.read_text().splitlines()}
    assert [len(s) for s in seen] == [processes_per_bot] * 2


def test_tournament_lifetime_one_process_per_bot_for_all_matches(tmp_path):
    db = tmp_path / "t.db"
    bots = [f"{PID_BOT} {i}" for i in range(3)]
    proc = run_arena("tournament", "rpsdraft", *bots, "--lifetime", "tournament", "--rounds", "2",
                     "--seed", replay_key("4"), "--db", str(db), "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["matches"] == 12 and all(r["matches"] == 8 for r in result["standings"])
    logs = sorted((tmp_path / "t-data").rglob("stderr.log"))
    assert len(logs) == 3  # one log, so one process, per bot
    for log in logs:
        starts = [line.split() for line in log.read_text().splitlines() if line.startswith("PID ")]
        assert len(starts) == 8 and len({s[1] for s in starts}) == 1
        # match_start's "match" counts the matches this process has played
        assert [int(s[3]) for s in starts] == list(range(8))


def test_kuhn3_refuses_a_shared_lifetime_for_several_matches(tmp_path):
    bot = str(TEST_BOTS / "misbehave.py") + " none"
    proc = run_arena("tournament", "kuhn3", bot, bot, bot, "--lifetime", "tournament",
                     "--db", str(tmp_path / "k.db"))
    assert proc.returncode == 2 and "no match boundaries" in proc.stderr
