"""Games are found through the `arena.games` entry-point group, built-ins too."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest

from arena import PluginLoadError, available_games, load_game


def test_kuhn3_is_registered_as_an_entry_point():
    names = {ep.name: ep.value for ep in entry_points(group="arena.games")}
    assert names.get("kuhn3") == "protocols.kuhn3:PLUGIN"
    assert "kuhn3" in available_games()


def test_every_registered_game_loads_and_describes_itself():
    for game_id in available_games():
        plugin = load_game(game_id)
        spec = plugin.spec
        assert spec.id == game_id
        assert spec.version >= 1 and spec.title and spec.description
        assert 1 <= spec.min_seats <= spec.max_seats
        plugin.Params()  # the defaults are valid


def test_unknown_game_is_a_clear_error():
    with pytest.raises(PluginLoadError, match="no game 'chess' is installed .*kuhn3"):
        load_game("chess")
