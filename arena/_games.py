"""Finding the installed games: every one, built-in or not, through the
``arena.games`` entry-point group."""

from __future__ import annotations

import functools
from importlib import metadata
from typing import Any

from protocols import GamePlugin

GROUP = "arena.games"
#: the distribution that installs the arena (the name "arena" on PyPI is
#: another project): what `pip install` and `importlib.metadata` call it
DISTRIBUTION = "arena-cardgames"


class PluginLoadError(Exception):
    """A registered game could not be loaded or is not a valid plugin."""


@functools.cache
def _registered() -> tuple[metadata.EntryPoint, ...]:
    # Reading every installed distribution's metadata costs tens of ms; what
    # is installed does not change while a process runs.
    return tuple(metadata.entry_points(group=GROUP))


def available_games() -> dict[str, str]:
    """Map every registered game id to its entry-point target (nothing imported)."""
    return {ep.name: ep.value for ep in _registered()}


def did_you_mean(word: str, choices: list[str]) -> str:
    """``; did you mean 'chess'?`` when a choice is close to ``word``, else nothing."""
    import difflib

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close:
        close = [c for c in choices if c.startswith(word) or word.startswith(c)][:1]
    return f"; did you mean {close[0]!r}?" if close else ""


@functools.cache
def load_game(game_id: str) -> GamePlugin[Any]:
    """Import and check the plugin registered under ``game_id``; ``ID:NAME``
    is the variant NAME of the game ID (``GamePlugin.variant``)."""
    found = [ep for ep in _registered() if ep.name == game_id]
    base, colon, name = game_id.partition(":")
    if not found and colon and name:
        try:
            return load_game(base).variant(name)
        except ValueError as exc:
            raise PluginLoadError(f"no game {game_id!r}: {exc}") from None
    if not found:
        names = sorted(available_games())
        known = ", ".join(names) or "none"
        raise PluginLoadError(f"no game {game_id!r} is installed{did_you_mean(game_id, names)} (installed: {known})")
    where = f"game {game_id!r} ({found[0].value})"
    try:
        plugin = found[0].load()
    except Exception as exc:  # a broken third-party plugin must not take the arena down
        raise PluginLoadError(f"{where} failed to load: {exc}") from exc
    if not isinstance(plugin, GamePlugin):
        raise PluginLoadError(
            f"{where} is a {type(plugin).__name__}, not an instance of protocols.GamePlugin "
            "(subclass it: every optional hook has a default there)")
    for attr in ("spec", "Params"):
        if not hasattr(plugin, attr):
            raise PluginLoadError(f"{where} has no {attr!r}")
    if plugin.spec.id != game_id:
        raise PluginLoadError(f"entry point {game_id!r} loads a game whose id is {plugin.spec.id!r}")
    return plugin
