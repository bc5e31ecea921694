"""Tournaments: determinism whatever --jobs is, durable results, resume after SIGKILL."""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import sqlite3
import subprocess

import pytest

from ..conftest import PY, ROOT, SAMPLE_BOTS, clean_env, replay_key, run_arena, sigint_default
from ..play.test_teardown import wait_for

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

#: Short matches, and a reply limit no busy machine reaches: a timeout would
#: change the standings the tests compare.
SETTINGS = ("-p", "hands=40", "--timeout", "10")

BOTS = [
    str(SAMPLE_BOTS / "build" / "rule_bot"),
    str(SAMPLE_BOTS / "build" / "rule_bot_rs"),
    f"{SAMPLE_BOTS / 'random_bot.py'} --seed 3",
    str(SAMPLE_BOTS / "check_fold_bot.py"),
]


def tournament(db, *extra, jobs=1):
    proc = run_arena("tournament", "kuhn3", *BOTS, "--seed", replay_key("21"), "--db", str(db), *SETTINGS,
                     "--jobs", str(jobs), "--json", *extra, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads(proc.stdout)


@pytest.fixture(scope="session")
def reference(tmp_path_factory):
    """The uninterrupted tournament, with one job: played once per test run,
    shared by the tests that compare with it (also across xdist workers)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # this run's folder, shared by its workers
    saved, db = base / "tournament-reference.json", base / "tournament-reference.db"
    with open(base / "tournament-reference.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not saved.exists():
            saved.write_text(json.dumps(tournament(db, jobs=1)[1]))
    return {**json.loads(saved.read_text()), "db_path": db}


def test_same_seed_same_standings_with_one_or_two_jobs(reference, tmp_path):
    one = reference
    proc, two = tournament(tmp_path / "two.db", jobs=2)
    assert one["standings"] == two["standings"]
    assert one["cross_table"] == two["cross_table"]
    assert one["matches"] == 24 and one["completed"]
    rows = {r["bot"]: r for r in two["standings"]}
    assert set(rows) == {"rule_bot", "rule_bot_rs", "random_bot.py", "check_fold_bot.py"}
    for row in two["standings"]:
        assert row["matches"] == 18  # 4 bots, 3 seats: each bot sits in 3/4 of 24 matches
        assert row["ci_low"] <= row["mean"] <= row["ci_high"]
    # kuhn3 tournaments rank by bankroll: the scores of every match add up to 0.
    assert sum(r["score"] for r in two["standings"]) == 0
    # Non-TTY progress: stable greppable lines.
    assert proc.stderr.count("Started match ") == 24
    assert proc.stderr.count("Finished match ") == 24


def test_every_match_is_stored_with_its_transcript_and_can_be_shown(reference):
    db = reference["db_path"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        rows = conn.execute("SELECT id, seats, transcript, completed FROM matches").fetchall()
        (status,) = conn.execute("SELECT status FROM tournaments").fetchone()
        shas = [r[0] for r in conn.execute("SELECT sha256 FROM bots")]
    assert status == "finished" and len(rows) == 24 and all(r[3] for r in rows)
    with sqlite3.connect(db) as conn:
        (timings,) = conn.execute("SELECT timings FROM matches LIMIT 1").fetchone()
    assert json.loads(timings)["sandbox"]["level"] == "none"  # every match records the level applied
    assert len(set(shas)) == 4 and all(len(s) == 64 for s in shas)
    shown = run_arena("show", str(rows[0][0]), "--db", str(db))
    assert shown.returncode == 0
    assert "seat 0 -> init_round" in shown.stdout
    assert "<- Thank you dealer, have a nice day!" in shown.stdout


def test_sigkill_then_resume_loses_and_repeats_nothing(reference, tmp_path):
    expected = reference

    db = tmp_path / "killed.db"
    args = [PY, "-m", "arena", "tournament", "kuhn3", *BOTS, "--seed", replay_key("21"), "--db", str(db),
            *SETTINGS, "--jobs", "2"]
    arena = subprocess.Popen(args, cwd=ROOT, env=clean_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    try:
        def stored() -> int:
            try:
                with sqlite3.connect(db) as conn:
                    return conn.execute("SELECT count(*) FROM matches WHERE status != 'pending'").fetchone()[0]
            except sqlite3.Error:
                return 0

        assert wait_for(lambda: stored() >= 5, timeout=120), "no match was stored"
        arena.send_signal(signal.SIGKILL)
        arena.wait(timeout=30)
    finally:
        arena.kill()
        arena.communicate()
    done_before = stored()
    assert done_before < 24, "the tournament finished before it could be killed"

    proc = run_arena("tournament", "--resume", "1", "--db", str(db), "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    resumed = json.loads(proc.stdout)
    assert resumed["standings"] == expected["standings"]
    with sqlite3.connect(db) as conn:
        positions = conn.execute("SELECT round, idx FROM matches").fetchall()
    assert len(positions) == len(set(positions)) == 24  # nothing lost, nothing repeated
    assert proc.stderr.count("Started match ") == 24 - done_before


def test_ctrl_c_stops_cleanly_and_the_resumed_run_equals_an_uninterrupted_one(reference, tmp_path):
    # 24 matches: many are still to play when the signal comes, however slow the machine
    expected = reference
    db = tmp_path / "t.db"
    arena = subprocess.Popen([PY, "-m", "arena", "tournament", "kuhn3", *BOTS, *SETTINGS, "--seed", replay_key("21"),
                              "--db", str(db), "--jobs", "2"], cwd=ROOT, env=clean_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    seen = []
    for line in arena.stderr:  # a few matches done, the next ones running
        seen.append(line)
        if line.startswith("Finished match") and sum(x.startswith("Finished") for x in seen) == 2:
            break
    arena.send_signal(signal.SIGINT)
    out, err = arena.communicate(timeout=60)
    err = "".join(seen) + err
    assert arena.returncode == 130, err
    assert re.search(r"^Interrupted tournament 1 \(SIGINT\) after \d+ of 24 matches", err, re.M), err
    assert "Traceback" not in err and "BaseExceptionGroup" not in err
    assert re.search(rf"resume with: arena tournament --resume 1 --db {re.escape(str(db))}$", err, re.M), err
    proc = run_arena("tournament", "--resume", "1", "--db", str(db), "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["standings"] == expected["standings"]


def test_bad_usage_exits_2(tmp_path):
    proc = run_arena("tournament", "kuhn3", BOTS[0], BOTS[1], "--db", str(tmp_path / "x.db"))
    assert proc.returncode == 2 and "at least 3 entrants" in proc.stderr
    assert not (tmp_path / "x.db").exists()  # a usage error creates nothing
    proc = run_arena("tournament", "--resume", "9", "--db", str(tmp_path / "x.db"))
    assert proc.returncode == 2 and "no such database" in proc.stderr
