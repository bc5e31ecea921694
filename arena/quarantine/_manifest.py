"""Opponent manifests: the reference bots a game ships for quarantine.

A game's plugin names its manifest (``reference_opponents()``); an organiser
may give another with ``arena quarantine --opponents FILE``::

    {"params": {"hands": 300},            # optional: the game's parameters
     "seats": 3,                           # optional: table size (default: the game's max)
     "opponents": [
        {"name": "random", "command": "./random_bot.py --seed 1", "random": true},
        {"name": "rule_bot", "command": "./build/rule_bot"}]}

Words of a command that contain a ``/`` and are not absolute, or that name
a file in the manifest's folder (``node count_bot.js``), are paths relative
to that folder, so a game package can ship its bots beside the manifest and
be installed anywhere.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocols import GamePlugin

from .._games import PluginLoadError, available_games, load_game


class ManifestError(Exception):
    """A game without a usable opponents manifest (a usage error)."""


@dataclass(frozen=True, slots=True)
class Opponent:
    name: str
    command: str  # as written in the manifest
    random: bool = False


@dataclass(frozen=True, slots=True)
class Manifest:
    game: str
    path: Path
    opponents: tuple[Opponent, ...]
    params: dict[str, Any] = field(default_factory=dict)
    seats: int | None = None

    def command(self, opponent: Opponent) -> str:
        """The opponent's command with its relative paths made absolute."""
        return resolve_command(opponent.command, self.path.parent)


def manifest_of(plugin: GamePlugin[Any], given: Path | None = None) -> Manifest:
    """``given``, or else the manifest the game ships; ManifestError if neither works."""
    path = given if given is not None else plugin.reference_opponents()
    if path is None:
        raise ManifestError(
            f"game {plugin.spec.id!r} ships no reference opponents; give a manifest with --opponents FILE")
    return load_manifest(plugin.spec.id, Path(path))


def games_with_manifests() -> list[str]:
    """Ids of the installed games that ship a manifest that exists, sorted."""
    found = []
    for game_id in sorted(available_games()):
        try:
            path = load_game(game_id).reference_opponents()
        except PluginLoadError:
            continue
        if path is not None and Path(path).is_file():
            found.append(game_id)
    return found


def load_manifest(game_id: str, path: Path) -> Manifest:
    if not path.is_file():
        raise ManifestError(
            f"game {game_id!r} has no opponents manifest ({path} is missing), "
            "so there are no reference bots to quarantine a bot against"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{path}: cannot be read as JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: the top level must be an object")
    raw_opponents = data.get("opponents")
    if not isinstance(raw_opponents, list) or not raw_opponents:
        raise ManifestError(f'{path}: "opponents" must be a non-empty list')
    opponents = [_opponent(path, i, entry) for i, entry in enumerate(raw_opponents)]
    params = data.get("params", {})
    if not isinstance(params, dict):
        raise ManifestError(f'{path}: "params" must be an object')
    seats = data.get("seats")
    if seats is not None and (not isinstance(seats, int) or isinstance(seats, bool) or seats < 1):
        raise ManifestError(f'{path}: "seats" must be a positive integer')
    return Manifest(game=game_id, path=path, opponents=tuple(opponents), params=params, seats=seats)


def _opponent(path: Path, i: int, entry: Any) -> Opponent:
    if not isinstance(entry, dict):
        raise ManifestError(f"{path}: opponent {i} is not an object")
    name, command, rnd = entry.get("name"), entry.get("command"), entry.get("random", False)
    if not isinstance(name, str) or not name:
        raise ManifestError(f'{path}: opponent {i} needs a "name" string')
    if not isinstance(command, str) or not command.strip():
        raise ManifestError(f'{path}: opponent {name!r} needs a "command" string')
    if not isinstance(rnd, bool):
        raise ManifestError(f'{path}: opponent {name!r}: "random" must be true or false')
    return Opponent(name=name, command=command, random=rnd)


def resolve_command(command: str, base: Path) -> str:
    """A manifest command with its relative paths made absolute under ``base``."""
    words = shlex.split(command)
    return shlex.join(str(base / w) if _relative_path(w, base) else w for w in words)


def _relative_path(word: str, base: Path) -> bool:
    """Whether a word of a manifest command is a path under the manifest's
    folder: it has a ``/`` and is not absolute, or it names a file there (the
    script of ``node count_bot.js``, which the folder's bots use and the
    process's working directory does not hold)."""
    if word.startswith(("/", "-")):
        return False
    return "/" in word or (base / word).is_file()
