"""A game as one third-party package: examples/pennies.

``make install`` installs it like any plugin. Every command works with it,
it passes ``arena check-game``, and no line of ``arena/`` names it. The rest
of the suite runs with it installed (every test over "every installed game"
covers it: goldens, options, check-game).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from arena import available_games, load_game
from arena.quarantine._conformance import check_game

from ..conftest import PY, ROOT, replay_key, run_arena

BOTS = ROOT / "examples" / "pennies" / "arena_pennies" / "bots"
RANDOM = f"{PY} {BOTS / 'random_bot.py'} --seed 4"
COPY = f"{PY} {BOTS / 'copy_bot.py'}"


def test_the_example_game_is_installed_and_unknown_to_the_arena():
    assert available_games()["pennies"] == "arena_pennies:PLUGIN"
    named = subprocess.run(["grep", "-rli", "--include=*.py", "pennies", "arena/"], cwd=ROOT,
                           capture_output=True, text=True)
    assert named.stdout == "", f"arena/ names the example game: {named.stdout}"


@pytest.mark.parametrize("game_id", sorted(available_games()))
def test_every_installed_game_passes_check_game(game_id):
    failed = [c.line() for c in check_game(load_game(game_id)) if not c.ok]
    assert failed == []


def test_check_game_command_reports_every_check():
    proc = run_arena("check-game", "pennies")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("\nok  ") + proc.stdout.startswith("ok  ") == 15
    assert proc.stdout.rstrip().endswith("check-game pennies: PASSED")


def test_the_example_game_plays_with_its_own_command_and_with_play():
    own = run_arena("pennies", RANDOM, COPY, "--throws", "12", "--seed", replay_key("5"), "--json", "--sandbox", "none")
    generic = run_arena("play", "pennies", RANDOM, COPY, "-p", "throws=12", "--seed", replay_key("5"), "--json",
                        "--sandbox", "none")
    assert own.returncode == 0 and generic.returncode == 0, own.stderr + generic.stderr
    a, b = json.loads(own.stdout), json.loads(generic.stdout)
    assert a["hands"] == 12 and a["completed"]
    assert [s["payoff"] for s in a["seats"]] == [s["payoff"] for s in b["seats"]]
    assert sum(s["payoff"] for s in a["seats"]) == 0


def test_the_example_game_bad_parameter_is_a_usage_error():
    proc = run_arena("pennies", RANDOM, COPY, "--throws", "0", "--sandbox", "none")
    assert proc.returncode == 2 and "--throws" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_the_example_game_runs_a_tournament_and_a_quarantine(tmp_path):
    db = tmp_path / "t.db"
    tour = run_arena("tournament", "pennies", RANDOM, COPY, f"r2={PY} {BOTS / 'random_bot.py'} --seed 9",
                     "-p", "throws=10", "--db", str(db), "--sandbox", "none", "--json")
    assert tour.returncode == 0, tour.stderr
    assert len(json.loads(tour.stdout)["standings"]) == 3
    quarantine = run_arena("quarantine", "pennies", COPY, "--matches", "2", "--sandbox", "none")
    assert quarantine.returncode == 0, quarantine.stdout + quarantine.stderr
    assert "quarantine PASSED" in quarantine.stdout


QUITTER = """
import json, sys
for n, line in enumerate(sys.stdin):
    kind = json.loads(line)["type"]
    if kind == "match_start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif kind == "choose":
        if json.loads(line)["round"] == 3:
            sys.exit(3)  # crashes when asked for throw 3
        print(json.dumps({"type": "coin", "side": "heads"}), flush=True)
"""


def test_a_single_match_scores_a_fault_by_the_games_rule(tmp_path):
    quitter = tmp_path / "quitter.py"
    quitter.write_text(QUITTER)
    proc = run_arena("pennies", f"{PY} {quitter}", COPY, "--throws", "10", "--seed", replay_key("5"), "--json",
                     "--sandbox", "none")
    result = json.loads(proc.stdout)
    assert [f["seat"] for f in result["faults"]] == [0], proc.stdout
    points = [s["payoff"] for s in result["seats"]]
    # pennies' rule: the faulting seat loses one more point per throw not played (7 of 10)
    assert [s["score"] for s in result["seats"]] == [points[0] - 7, points[1]]


def test_the_result_table_uses_the_games_own_words():
    proc = run_arena("pennies", RANDOM, COPY, "--throws", "4", "--seed", replay_key("5"), "--sandbox", "none")
    assert proc.returncode == 0, proc.stderr
    header = next(line for line in proc.stdout.splitlines() if "seat" in line and "bot" in line)
    assert "points" in header and "bankroll" not in header, proc.stdout
    assert "4 throws" in proc.stdout


def test_the_example_package_builds_without_a_warning_of_its_own(tmp_path):
    """`make install` builds it with setuptools; a warning about its own folders
    (bots, golden) once showed on every `make demo`. Built from a copy, offline,
    with the setuptools uv keeps from that install."""
    import shutil
    import zipfile

    source = tmp_path / "pennies"
    shutil.copytree(ROOT / "examples" / "pennies", source,
                    ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__"))
    uv = shutil.which("uv", path=str(Path(PY).parent))
    assert uv, "uv is missing from the venv: `make install` installs it"
    command = [uv, "build", "--wheel", "--out-dir", str(tmp_path / "dist"), str(source)]
    built = subprocess.run([*command[:2], "--offline", *command[2:]], capture_output=True, text=True, timeout=120)
    if built.returncode != 0 and "offline" in built.stderr.lower():  # uv's cache lacks setuptools: the index has it
        built = subprocess.run(command, capture_output=True, text=True, timeout=120)
    said = built.stdout + built.stderr
    assert built.returncode == 0, said[-3000:]
    own = [line for line in said.splitlines() if "arena_pennies" in line and "warn" in line.lower()]
    assert own == [], "\n".join(own)
    (wheel,) = (tmp_path / "dist").glob("arena_pennies-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for path in ("arena_pennies/golden/pennies.playthrough", "arena_pennies/bots/random_bot.py",
                 "arena_pennies/bots/opponents.json"):
        assert path in names, names
