"""Golden playthroughs: one full seeded transcript per registered game.

A change to what goes over the wire shows up as a diff against
tests/golden/<game>.playthrough. Regenerate on purpose with
ARENA_UPDATE_GOLDENS=1 pytest tests/test_playthroughs.py, and review the diff.
"""

from __future__ import annotations

import os
import random

import pytest

from games import available_games, load_game

from .conftest import ROOT
from .kuhn3_helpers import playthrough

GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("ARENA_UPDATE_GOLDENS") == "1"

# How each game is played for its golden: parameters, seed, reply policy.
PLAYTHROUGHS = {
    "kuhn3": lambda: playthrough(
        load_game("kuhn3").open_dialogue(load_game("kuhn3").Params(hands=6), random.Random(7), ["a", "b", "c"]),
        random.Random(7),
    ),
}


@pytest.mark.parametrize("game_id", sorted(available_games()))
def test_every_registered_game_has_a_golden_playthrough(game_id):
    assert game_id in PLAYTHROUGHS, f"no playthrough recipe for {game_id}: add one to PLAYTHROUGHS"
    path = GOLDEN / f"{game_id}.playthrough"
    got = "\n".join(PLAYTHROUGHS[game_id]()) + "\n"
    if UPDATE:
        path.write_text(got)
    assert path.exists(), f"{path} is missing: run with ARENA_UPDATE_GOLDENS=1 to create it"
    want = path.read_text()
    if got != want:
        for n, (a, b) in enumerate(zip(got.splitlines(), want.splitlines()), 1):
            assert a == b, f"{game_id} playthrough differs first at line {n}"
    assert got == want


def test_the_playthrough_is_deterministic():
    assert PLAYTHROUGHS["kuhn3"]() == PLAYTHROUGHS["kuhn3"]()
