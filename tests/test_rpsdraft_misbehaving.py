"""rpsdraft against a corpus of misbehaving bots, through the real CLI.

For each: the right fault kind naming the right seat and bot, exit code 1,
and no process started by the test left alive afterwards.
"""

from __future__ import annotations

import pytest

from .conftest import processes_with, python_bot, run_json

# mode -> (fault kind, words the detail or the received line must contain)
CASES = {
    "garbage": ("malformed_reply", "not JSON"),
    "not_json": ("malformed_reply", "not JSON"),
    "wrong_type": ("malformed_reply", "got type 'fold'"),
    "extra_field": ("malformed_reply", "why"),
    "illegal_index": ("illegal_action", "index 7 is outside"),
    "string_index": ("illegal_action", "must be an integer"),
    "silent": ("timeout", "no reply within 0.5 s"),
    "slow": ("timeout", "no reply within 0.5 s"),
    "exit_mid": ("disconnected", "exited (code 0)"),
    "crash": ("crashed", "exited with code 3"),
    "signal": ("crashed", "killed by SIGSEGV"),
    "close_stdout": ("disconnected", "closed its stdout"),
    "huge_line": ("malformed_reply", "without a newline"),
    "bad_utf8": ("malformed_reply", "not valid UTF-8"),
}


def play(bots: list[str], *extra: str):
    return run_json("rpsdraft", *bots, "--seed", "5", "--timeout", "0.5", *extra)


@pytest.mark.parametrize("mode", sorted(CASES))
def test_fault_is_typed_and_names_the_seat(mode, tag):
    kind, words = CASES[mode]
    seat = sorted(CASES).index(mode) % 2  # both seats get some of the corpus
    when = "draft" if sorted(CASES).index(mode) % 3 == 0 else "main"
    good = python_bot("misbehave_rpsdraft.py", "none", "main", tag)
    bad = python_bot("misbehave_rpsdraft.py", mode, when, tag)
    bots = [good, good]
    bots[seat] = bad
    proc, result = play(bots)

    assert proc.returncode == 1, proc.stderr
    assert result["completed"] is False
    (fault,) = result["faults"]
    assert fault["kind"] == kind
    assert fault["seat"] == seat and fault["bot"] == bad
    assert words in f"{fault['detail']} {fault['received']}"
    assert fault["expected"]
    # A fault in the main phase names the turn; in the draft there is none.
    assert fault["hand"] == (0 if when == "main" else None)
    assert f"seat {seat}" in proc.stderr and kind in proc.stderr
    assert processes_with(tag) == []


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
    assert [sum(s["bankroll"] for s in m["seats"]) for m in result["matches"]] == [10, 10, 10]
    assert processes_with(tag) == []
