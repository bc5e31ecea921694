"""--resume is faithful: every option of the original run comes back from the
database, a bot whose files changed is refused unless the organiser accepts
it (and that is recorded), and one tournament is never played twice at once."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess

import pytest

from arena.sandbox import probe

from ..conftest import PY, ROOT, SAMPLE_BOTS, TEST_BOTS, clean_env, replay_key, run_arena
from ..play.test_teardown import wait_for

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

GOOD = str(SAMPLE_BOTS / "build" / "rule_bot")


def _stored(db) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT count(*) FROM matches WHERE status != 'pending'").fetchone()[0]
    except sqlite3.Error:
        return 0


def _start(db, bots, *extra):
    args = [PY, "-m", "arena", "tournament", "kuhn3", *bots, "--seed", replay_key("5"), "--db", str(db),
            "-p", "hands=2", *extra]
    return subprocess.Popen(args, cwd=ROOT, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _kill_after(arena, db, matches: int) -> int:
    try:
        assert wait_for(lambda: _stored(db) >= matches, timeout=120), "no match was stored"
        arena.send_signal(signal.SIGKILL)
        arena.wait(timeout=30)
    finally:
        arena.kill()
        arena.communicate()
    done = _stored(db)
    assert done < 6, "the tournament finished before it could be killed"
    return done


def test_resume_restores_every_option(tmp_path):
    """A bot whose first action takes 1.2 s is fine under the original
    --timeout 2; a resume that forgot it (1 s) would fault it."""
    slow = f"{PY} {TEST_BOTS / 'quarantine_bot.py'} slow_once 1.2"
    db = tmp_path / "t.db"
    level = probe().best_default  # where limits apply, they are recorded with every match
    arena = _start(db, [slow, GOOD, GOOD], "--timeout", "2", "--memory-mb", "300", "--startup-timeout", "7",
                   "--sandbox", level, "--jobs", "2")
    done = _kill_after(arena, db, 1)
    proc = run_arena("tournament", "--resume", "1", "--db", str(db), "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    # It says it resumed, and plays as many matches at once as the run it continues.
    assert proc.stderr.startswith(f"Resumed tournament 1 (kuhn3, 3 entrants, 6 matches, {done} played before, "
                                  f"jobs 2, sandbox {level}, "), proc.stderr
    result = json.loads(proc.stdout)
    assert result["completed"] and all(not row["faults"] for row in result["standings"]), result["standings"]
    with sqlite3.connect(db) as conn:
        (settings,) = conn.execute("SELECT settings FROM tournaments").fetchone()
        applied = [json.loads(t)["sandbox"] for (t,) in conn.execute("SELECT timings FROM matches")]
    settings = json.loads(settings)
    assert settings["timeout"] == 2 and settings["startup_timeout"] == 7 and settings["sandbox"] == level
    assert settings["policy"]["memory_mb"] == 300 and settings["jobs"] == 2
    assert {a["level"] for a in applied} == {level}  # every match, before and after the resume
    if level != "none":
        assert {a["policy"]["memory_mb"] for a in applied} == {300}
    # --jobs is where the matches run, not what they are: a resume may give another.
    again = run_arena("tournament", "--resume", "1", "--db", str(db), "--jobs", "1")
    assert again.returncode == 0 and again.stderr.startswith(
        "Resumed tournament 1 (kuhn3, 3 entrants, 6 matches, 6 played before, jobs 1, "), again.stderr


def test_options_cannot_change_on_resume(tmp_path):
    db = tmp_path / "t.db"
    proc = run_arena("tournament", "kuhn3", GOOD, GOOD, GOOD, "-p", "hands=1", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    proc = run_arena("tournament", "--resume", "1", "--db", str(db), "--timeout", "5", "--pids", "9")
    assert proc.returncode == 2
    assert "--resume restores every option" in proc.stderr and "--timeout" in proc.stderr and "--pids" in proc.stderr


def test_a_changed_bot_is_refused_unless_accepted(tmp_path):
    bot = tmp_path / "bot.py"
    shutil.copy(TEST_BOTS / "misbehave.py", bot)
    shutil.copy(TEST_BOTS / "io_faults.py", tmp_path / "io_faults.py")
    bot.chmod(0o755)
    db = tmp_path / "t.db"
    arena = _start(db, [f"{PY} {bot} sluggish", GOOD, GOOD])
    done = _kill_after(arena, db, 1)
    with bot.open("a") as f:
        f.write("# a change after the start\n")
    proc = run_arena("tournament", "--resume", "1", "--db", str(db))
    assert proc.returncode == 2
    assert "bot 'bot.py' changed since tournament 1 started" in proc.stderr, proc.stderr
    assert "--accept-changed-bots" in proc.stderr
    assert _stored(db) == done  # nothing was played
    proc = run_arena("tournament", "--resume", "1", "--db", str(db), "--accept-changed-bots", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["completed"]
    assert [e for e in result["events"] if e.startswith("accepted: bot 'bot.py' changed")]


def test_one_tournament_is_never_played_twice_at_once(tmp_path):
    slow = f"{PY} {TEST_BOTS / 'misbehave.py'} silent"
    db = tmp_path / "t.db"
    arena = _start(db, [slow, GOOD, GOOD], "--timeout", "30")
    try:
        for line in arena.stderr:  # the lock is held from before the first match starts
            if line.startswith(b"Started match"):
                break
        proc = run_arena("tournament", "--resume", "1", "--db", str(db))
        assert proc.returncode == 2
        assert "is being played by another arena process" in proc.stderr, proc.stderr
    finally:
        arena.kill()
        arena.communicate()

