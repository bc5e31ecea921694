"""What a stored tournament says, for every page and command that shows
it: its standings under its own rules, how it was played in words, and the
command that plays one of its matches again."""

from __future__ import annotations

import json
import shlex
from typing import Any

from ._standings import BROKEN_START, Disqualification, Standings, compute_standings
from ._store import Store
from .._text import inert


def standings_of(store: Store, tid: int) -> Standings:
    """Standings, cross-table and head-to-head of a stored tournament (its own rules)."""
    saved = store.tournament(tid)
    assert saved is not None
    settings = saved["settings"]
    names = [e["name"] for e in saved["entrants"]]
    return compute_standings(names, store.matches(tid), max_faults=settings.get("max_faults"),
                             broken_start=settings.get("broken_start"), unplayed=settings.get("unplayed", 0.0),
                             duplicate=bool(settings.get("duplicate")),
                             big_blind=ranked_big_blind(saved["game"], saved["params"]))


def stored_game(game: str, params: dict[str, Any] | None) -> tuple[Any, Any]:
    """A stored tournament's game and its parameters' model: (None, None) where the
    game is not installed, (plugin, None) where another version of it stored them."""
    from .._games import PluginLoadError, load_game

    try:
        plugin = load_game(game)
    except PluginLoadError:
        return None, None
    try:
        return plugin, plugin.Params(**(params or {}))
    except Exception:  # parameters stored by another version of the game
        return plugin, None


def game_units(game: str, params: dict[str, Any] | None = None) -> dict[str, str]:
    """The game's words for its scores (docs/vocabulary.md), for a stored tournament's
    parameters (another version's: its words still hold)."""
    plugin, model = stored_game(game, params)
    if plugin is None:
        return {"payoff": "payoff", "hands": "hands", "score": "score", "tournament": "score"}
    return plugin.units(model)


def ranked_big_blind(game: str, params: dict[str, Any] | None) -> float | None:
    """The big blind of a stored tournament's game when its standings rank by
    chips (the payoff's unit): their scores then read as mbb/g and bb/100.
    None for a game without one, and where the tournament ranks by points."""
    return game_big_blind(game, params, ranked=True)


def game_big_blind(game: str, params: dict[str, Any] | None, *, ranked: bool = False) -> float | None:
    """The big blind of a stored game's payoffs (``GamePlugin.big_blind``), None
    without one; ``ranked``: only where its tournaments rank by the payoff's unit.
    Another version's parameters give none: no rates rather than wrong ones."""
    plugin, model = stored_game(game, params)
    if model is None:
        return None
    units = plugin.units(model)
    if ranked and units["tournament"] != units["payoff"]:
        return None
    return plugin.big_blind(model)


def format_words(settings: dict[str, Any]) -> list[str]:
    """How a tournament was played, in words the standings show beside its name."""
    words = []
    if settings.get("duplicate"):
        words.append("duplicate deals")
    if settings.get("gauntlet") is not None:
        words.append(f"gauntlet {inert(str(settings['gauntlet']))}")
    if settings.get("until_ci") is not None:
        words.append(f"until every 95% interval is within +/-{settings['until_ci']:g}")
    if settings.get("sprt"):
        s = settings["sprt"]
        words.append(f"SPRT on chips [{s['elo0']:g}, {s['elo1']:g}] mbb/g" if s.get("model") == "chips"
                     else f"SPRT [{s['elo0']:g}, {s['elo1']:g}]")
    if settings.get("on_fault") == "score-so-far":
        words.append("faults keep their score so far (a fault can pay)")
    # (a tournament stored before --broken-start had none: it says so)
    words += Disqualification(0, settings.get("max_faults"), settings.get("broken_start")).describe(BROKEN_START)
    return words


def standings_format(settings: dict[str, Any]) -> dict[str, Any]:
    """The same, for the JSON: the options that change what the standings mean."""
    return {"duplicate": bool(settings.get("duplicate")), "gauntlet": settings.get("gauntlet"),
            "until_ci": settings.get("until_ci"), "sprt": settings.get("sprt"), "on_fault": settings.get("on_fault", "forfeit"),
            "max_faults": settings.get("max_faults"), "broken_start": settings.get("broken_start")}


#: what a replay cannot give back when the tournament kept a process per entrant
LIFETIME_NOTE = ("# not reproduced: the tournament kept one process per bot (--lifetime tournament); this plays "
                 "the match with fresh processes, so a bot that keeps state across matches may play it differently")


def replay_command(game: str, params: dict[str, Any], defaults: dict[str, Any], entrants: list[tuple[str, str]],
                   seed: str, settings: dict[str, Any], lifetime: str = "match") -> str:
    """The `arena play` command line that plays one stored match again; with
    a shell comment saying what it cannot reproduce when the bots kept their
    processes across the tournament's matches."""
    words = ["arena", "play", game, *(f"{name}={command}" for name, command in entrants), "--seed", str(seed)]
    for key, value in params.items():
        if value != defaults.get(key):
            words += ["-p", f"{key}={json.dumps(value, separators=(',', ':'))}"]
    for option, key, default in (("--timeout", "timeout", 1.0), ("--startup-timeout", "startup_timeout", 10.0),
                                 ("--budget", "budget", None)):
        if settings.get(key, default) != default:
            words += [option, f"{settings[key]:g}"]
    command = shlex.join(words)
    return f"{command}  {LIFETIME_NOTE}" if lifetime == "tournament" else command
