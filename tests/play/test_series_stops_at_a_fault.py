"""A series of matches between the same processes (rpsdraft, through the
real CLI): the first fault ends the series; well-behaved bots finish it."""

from __future__ import annotations

from ..conftest import processes_with, python_bot, replay_key, run_json


def play(bots: list[str], *extra: str):
    return run_json("rpsdraft", *bots, "--seed", replay_key("5"), "--timeout", "0.5", *extra)


def test_an_illegal_index_in_a_series_stops_the_series(tag):
    # Fail-fast: the series ends at the first faulted match.
    good = python_bot("misbehave_rpsdraft.py", "none", "main", tag)
    bad = python_bot("misbehave_rpsdraft.py", "illegal_index", "main", tag)
    proc, result = play([bad, good], "--matches", "5", "--lifetime", "tournament")
    assert proc.returncode == 1, proc.stderr
    assert len(result["matches"]) == 1
    assert result["faults"][0]["kind"] == "illegal_action"
    assert processes_with(tag) == []


def test_well_behaved_bots_complete_a_series(tag):
    good = python_bot("misbehave_rpsdraft.py", "none", "main", tag)
    proc, result = play([good, good], "--matches", "3", "--lifetime", "tournament")
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] is True
    assert [sum(s["payoff"] for s in m["seats"]) for m in result["matches"]] == [10, 10, 10]
    assert processes_with(tag) == []
