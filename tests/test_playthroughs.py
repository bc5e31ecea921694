"""Golden playthroughs: one full seeded transcript per registered game.

A change to what goes over the wire shows up as a diff against
tests/golden/<game>.playthrough. Regenerate on purpose with
ARENA_UPDATE_GOLDENS=1 pytest tests/test_playthroughs.py, and review the diff.
"""

from __future__ import annotations

import importlib
import os

import pytest

from games import available_games, load_game

from .conftest import ROOT

GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("ARENA_UPDATE_GOLDENS") == "1"


def recipe(game_id: str):
    """The playthrough recipe of a game: tests/playthrough_recipes/<game>.py."""
    try:
        module = importlib.import_module(f"tests.playthrough_recipes.{game_id}")
    except ModuleNotFoundError:
        pytest.fail(f"no playthrough recipe for {game_id}: add tests/playthrough_recipes/{game_id}.py")
    return module.playthrough


@pytest.mark.parametrize("game_id", sorted(available_games()))
def test_every_registered_game_has_a_golden_playthrough(game_id):
    path = GOLDEN / f"{game_id}.playthrough"
    got = "\n".join(recipe(game_id)()) + "\n"
    if UPDATE:
        path.write_text(got)
    assert path.exists(), f"{path} is missing: run with ARENA_UPDATE_GOLDENS=1 to create it"
    want = path.read_text()
    if got != want:
        for n, (a, b) in enumerate(zip(got.splitlines(), want.splitlines()), 1):
            assert a == b, f"{game_id} playthrough differs first at line {n}"
    assert got == want


@pytest.mark.parametrize("game_id", sorted(available_games()))
def test_the_playthrough_is_deterministic(game_id):
    assert recipe(game_id)() == recipe(game_id)()
