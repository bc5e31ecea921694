"""Golden playthroughs: one seeded transcript per installed game, built-in or not.

Each game names its golden file (``playthrough_file()``), so a third-party
game's goldens are found where it ships them. A change to what goes over the
wire shows up as a diff; rewrite on purpose with
``arena check-game GAME --write-golden`` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena import available_games, load_game
from arena.quarantine._conformance import playthrough


@pytest.mark.parametrize("game_id", sorted(available_games()))
def test_every_installed_game_has_its_golden_playthrough(game_id):
    plugin = load_game(game_id)
    path = plugin.playthrough_file()
    assert path is not None, f"{game_id}: playthrough_file() names no golden file"
    assert Path(path).is_file(), f"{path} is missing: `arena check-game {game_id} --write-golden`"
    got = playthrough(plugin)
    want = Path(path).read_text().splitlines()
    for n, (a, b) in enumerate(zip(got, want), 1):
        assert a == b, f"{game_id} playthrough differs first at line {n}"
    assert len(got) == len(want)


@pytest.mark.parametrize("game_id", sorted(available_games()))
def test_the_playthrough_is_deterministic(game_id):
    plugin = load_game(game_id)
    assert playthrough(plugin) == playthrough(plugin)
