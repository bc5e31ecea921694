"""Pure game rules and the plugin interface; discovery through entry points.

Every game, built-in or not, is found the same way: an object registered in
the ``arena.games`` entry-point group.
"""

from __future__ import annotations

import functools as _functools
from importlib import metadata as _metadata

from ._base import Dialogue, Exchange, GamePlugin, GameSpec, IllegalAction, MatchOutcome

__all__ = [
    "Dialogue",
    "Exchange",
    "GamePlugin",
    "GameSpec",
    "IllegalAction",
    "MatchOutcome",
    "PluginLoadError",
    "available_games",
    "load_game",
]

GROUP = "arena.games"


class PluginLoadError(Exception):
    """A registered game could not be loaded or is not a valid plugin."""


@_functools.cache
def _registered() -> tuple[_metadata.EntryPoint, ...]:
    # Reading every installed distribution's metadata costs tens of ms; what
    # is installed does not change while a process runs.
    return tuple(_metadata.entry_points(group=GROUP))


def available_games() -> dict[str, str]:
    """Map every registered game id to its entry-point target (nothing imported)."""
    return {ep.name: ep.value for ep in _registered()}


def load_game(game_id: str) -> GamePlugin:
    """Import and check the plugin registered under ``game_id``."""
    found = [ep for ep in _registered() if ep.name == game_id]
    if not found:
        known = ", ".join(sorted(available_games())) or "none"
        raise PluginLoadError(f"no game {game_id!r} is installed (installed: {known})")
    try:
        plugin = found[0].load()
    except Exception as exc:  # a broken third-party plugin must not take the arena down
        raise PluginLoadError(f"game {game_id!r} ({found[0].value}) failed to load: {exc}") from exc
    for attr in ("spec", "Params", "open_dialogue"):
        if not hasattr(plugin, attr):
            raise PluginLoadError(f"game {game_id!r} ({found[0].value}) has no {attr!r}")
    if plugin.spec.id != game_id:
        raise PluginLoadError(
            f"entry point {game_id!r} loads a game whose id is {plugin.spec.id!r}"
        )
    return plugin
