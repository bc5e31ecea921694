"""A results database written by arena 0.1 reads, exports and resumes under
the names that changed since (docs/vocabulary.md): hold'em's ``-p format`` is
``-p mode``, pennies' ``-p rounds`` is ``-p throws``, a match's JSON says
``payoff``.

``tests/golden/results-0.1.db`` was written by arena 0.1.0 (commit 0afea0b):
a pennies tournament (``-p rounds=5``, two rounds; its last match then set
back to pending, as a killed run leaves it) and a hold'em freezeout
(``-p format=freezeout``), both at ``--sandbox none``.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3

from ..conftest import ROOT, run_arena

OLD = ROOT / "tests" / "golden" / "results-0.1.db"


def test_a_database_of_arena_0_1_lists_exports_and_resumes_under_the_new_names(tmp_path):
    db = tmp_path / "old.db"
    shutil.copy(OLD, db)
    listed = run_arena("tournaments", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert ["1", "pennies"] == rows[3][:2] and "3/4" in rows[3] and "unfinished" in rows[3], listed.stdout
    assert ["2", "holdem"] == rows[4][:2] and "2/2" in rows[4] and "finished" in rows[4], listed.stdout

    # The stored parameters are shown, and replayed, under their new names.
    exported = run_arena("export", "2", "--db", str(db))
    assert exported.returncode == 0, exported.stderr
    first = json.loads(exported.stdout.splitlines()[0])
    assert first["params"]["mode"] == "freezeout" and "format" not in first["params"]
    replay = shlex.split(first["replay"], comments=True)
    assert replay[:3] == ["arena", "play", "holdem"] and "mode=\"freezeout\"" in replay, replay
    assert first["payoffs"] == [0, 1] and first["scores"] == [0.0, 1.0]

    # The interrupted tournament goes on with its stored parameters (5 throws a match), saying nothing of names.
    resumed = run_arena("tournament", "--resume", "1", "--db", str(db), "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert "warning" not in resumed.stderr, resumed.stderr
    result = json.loads(resumed.stdout)
    assert result["units"]["hands"] == "throws" and len(result["standings"]) == 2
    with sqlite3.connect(db) as conn:
        played = conn.execute("SELECT status, hands FROM matches WHERE tournament=1").fetchall()
    assert played == [("done", 5)] * 4
