"""The command line, run as a real process: exit codes, --json, usage errors."""

from __future__ import annotations

import json
import re

import pytest

from ..conftest import SAMPLE_BOTS, processes_with, python_bot, run_arena, run_json

GOOD = python_bot("misbehave.py", "none")


def test_games_lists_kuhn3_with_version_and_seats():
    proc = run_arena("games")
    assert proc.returncode == 0
    header, *rows = proc.stdout.splitlines()
    assert header.split()[:3] == ["GAME", "VERSION", "SEATS"]
    kuhn3 = next(r for r in rows if r.startswith("kuhn3 "))
    assert kuhn3.split()[1:3] == ["2", "3"]


def test_json_has_the_promised_keys_and_exit_code_0():
    proc, result = run_json("kuhn3", GOOD, GOOD, GOOD, "--seed", "11", "--hands", "7")
    assert proc.returncode == 0, proc.stderr
    for key in ("game", "seed", "hands", "completed", "seats", "faults"):
        assert key in result
    assert result["game"] == "kuhn3" and re.fullmatch(r"11:[0-9a-f]{32}", result["seed"]) and result["hands"] == 7
    assert result["completed"] is True and result["faults"] == []
    assert [s["bot"] for s in result["seats"]] == [GOOD] * 3
    assert sum(s["payoff"] for s in result["seats"]) == 0
    for seat in result["seats"]:
        assert seat["score"] == pytest.approx(seat["payoff"] / 7 ** 0.5)


def test_the_printed_key_replays_the_match_and_a_typed_seed_alone_does_not():
    first = run_json("kuhn3", GOOD, GOOD, GOOD, "--seed", "99", "--end-prob", "1/20")
    key = first[1]["seed"]
    # While it plays only the seed shows; the key, secret and all, when it has ended.
    assert "Started kuhn3 seed 99:" in first[0].stderr
    assert key.startswith("99:") and f"Finished kuhn3 seed {key}:" in first[0].stderr
    assert key not in first[0].stderr.split("Finished", 1)[0]
    replay = run_json("kuhn3", GOOD, GOOD, GOOD, "--seed", key, "--end-prob", "1/20")
    assert replay[1]["seed"] == key
    assert [s["payoff"] for s in first[1]["seats"]] == [s["payoff"] for s in replay[1]["seats"]]
    assert first[1]["hands"] == replay[1]["hands"]
    again = run_json("kuhn3", GOOD, GOOD, GOOD, "--seed", "99", "--end-prob", "1/20")
    assert again[1]["seed"].startswith("99:") and again[1]["seed"] != key  # a fresh secret
    unseeded = run_json("kuhn3", GOOD, GOOD, GOOD, "--hands", "1")
    assert f"seed {unseeded[1]['seed']}" in unseeded[0].stderr


def test_table_is_printed_without_json():
    proc = run_arena("kuhn3", GOOD, GOOD, GOOD, "--seed", "4", "--hands", "9")
    assert proc.returncode == 0
    assert "chips" in proc.stdout and "chips/√hands" in proc.stdout  # kuhn3's words (docs/vocabulary.md)
    assert proc.stdout.count(str(SAMPLE_BOTS.parent.parent / "tests" / "bots" / "misbehave.py")) == 3


@pytest.mark.parametrize(
    "args, words",
    [
        (["kuhn3", "./no/such/bot", GOOD, GOOD], "does not exist"),
        (["kuhn3", GOOD, GOOD], "needs 3 bots, got 2"),
        (["kuhn3", GOOD, GOOD, GOOD, "--end-prob", "half"], "--end-prob: takes A/B"),
        (["kuhn3", GOOD, GOOD, GOOD, "--end-prob", "5/2"], "0 < a <= b"),
        (["kuhn3", GOOD, GOOD, GOOD, "--timeout", "0"], "--timeout must be above 0"),
        (["kuhn3", "no-such-program-here", GOOD, GOOD], "not a program on PATH"),
        (["kuhn3", "tests/bots/not_executable.txt", GOOD, GOOD], "not executable"),
    ],
)
def test_bad_usage_exits_2_before_anything_starts(args, words, tag):
    proc = run_arena(*[a.replace("misbehave.py none", f"misbehave.py none {tag}") for a in args])
    assert proc.returncode == 2
    assert words in proc.stderr
    assert "Started" not in proc.stderr
    assert processes_with(tag) == []


def test_trace_prints_every_line_with_seat_and_time():
    proc = run_arena("kuhn3", GOOD, GOOD, GOOD, "--seed", "1", "--hands", "1", "--trace")
    assert proc.returncode == 0
    trace = [line for line in proc.stderr.splitlines() if line.startswith("[")]
    assert any(line.endswith("seat 0 -> init_round") for line in trace)
    assert any(line.endswith("seat 2 <- Thank you dealer, have a nice day!") for line in trace)
    # 3 x (5 init_round + 3 init_hand + 6 end_hand + 3 EndAction + 3 end_round) sent lines
    # plus 3 x 4 plays' lines at least, and one received line per exchange.
    assert len([line for line in trace if " -> " in line]) >= 3 * 20 + 4 * 3


def test_a_failed_start_is_a_fault_with_exit_1(tmp_path):
    broken = tmp_path / "broken"
    broken.write_text("this is not a program\n")
    broken.chmod(0o755)
    proc, result = run_json("kuhn3", GOOD, str(broken), GOOD, "--seed", "1")
    assert proc.returncode == 1
    (fault,) = result["faults"]
    assert fault["seat"] == 1 and fault["kind"] == "failed_to_start"


def test_python_dash_m_and_console_script_agree():
    proc = run_arena("--help")
    assert proc.returncode == 0 and "kuhn3" in proc.stdout and "games" in proc.stdout
    json.dumps(proc.stdout)


@pytest.mark.slow
def test_progress_is_shown_on_a_terminal_only():
    import os
    import pty
    import subprocess

    from ..conftest import PY, ROOT, clean_env

    main, sub = pty.openpty()
    try:
        proc = subprocess.run(
            [PY, "-m", "arena", "kuhn3", GOOD, GOOD, GOOD, "--seed", "2", "--hands", "300", "--json"],
            stdout=subprocess.PIPE, stderr=sub, env=clean_env(), cwd=ROOT, timeout=60,
        )
        os.close(sub)
        sub = -1
        seen = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the terminal has no writer left
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if sub >= 0:
            os.close(sub)
        os.close(main)
    assert proc.returncode == 0
    assert b"hands/s)" in seen  # the live progress line
    # ...and off a terminal there is none.
    plain = run_arena("kuhn3", GOOD, GOOD, GOOD, "--seed", "2", "--hands", "300", "--json")
    assert "hands/s)" not in plain.stderr


def test_version_and_short_help():
    from importlib.metadata import version

    proc = run_arena("--version")
    assert proc.returncode == 0 and proc.stdout.startswith(f"arena {version('arena-cardgames')} (Python ")
    for args in (["-h"], ["tournament", "-h"], ["quarantine", "-h"]):
        proc = run_arena(*args)
        assert proc.returncode == 0 and "Usage:" in proc.stdout, (args, proc.stderr)


def test_games_describes_one_game_from_its_plugin():
    proc = run_arena("games", "twocarddraw")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("twocarddraw version 3: ") and "seats: 1-2" in lines
    # every parameter of the model, with its default and range
    bet1 = next(line for line in lines if line.split()[:1] == ["bet1"])
    assert "default null" in bet1 and "range 1..5" in bet1
    assert any(line.split()[:3] == ["hands", "default", "10000"] for line in lines)
    proc = run_arena("games", "nosuchgame")
    assert proc.returncode == 2 and "no game 'nosuchgame'" in proc.stderr


@pytest.mark.parametrize("args", [
    ["tournament", "twocarddraw", "A", "B", "-p", "strategy=/nonexistent.txt"],
    ["play", "twocarddraw", "A", "-p", "strategy=/nonexistent.txt"],
    ["twocarddraw", "A", "--strategy", "/nonexistent.txt"],
])
def test_an_unreadable_strategy_file_is_one_line_and_exit_2(args, tmp_path):
    proc = run_arena(*args, "--db", str(tmp_path / "t.db")) if args[0] == "tournament" else run_arena(*args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("arena: error: "), proc.stderr
    assert "/nonexistent.txt" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "t.db").exists()  # nothing was started or written
