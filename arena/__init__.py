"""arena: bots in any language play card games over stdin/stdout.

This package is the only layer that does I/O (processes, pipes, clocks,
files, the command line). Rules live in ``games``, wire formats and the
game plugins in ``protocols``. The public API (docs/api.md): find a game
(``load_game``), describe bots (``BotSpec``), play a match or a series
(``run_match``, ``run_series`` with ``MatchSettings``), a tournament
(``plan_tournament``, ``create_tournament``, ``run_tournament``) and read
stored results (``open_store``, ``standings_of``).
"""

import typing

if typing.TYPE_CHECKING:  # what the names are, for readers and type checkers
    from .play._bot import BotProcess

    from ._checks import UsageError
    from ._spec import BadBotCommand, BotSpec
    from .play._guard import GameError
    from .play._host import BotHost, open_bots, open_host
    from ._faults import BotFault, Fault, FaultKind
    from ._games import PluginLoadError, available_games, load_game
    from .play._lines import LineBuffer
    from .play._match import MatchResult, MatchSettings, SeatResult, SeriesResult, run_match, run_series
    from .results._store import Store, StoreError, open_store
    from .results._report import standings_of
    from .tournament._plan import create_tournament, load_tournament, plan_tournament
    from .tournament._run import Outcome, Progress, TournamentConfig, run_tournament

# The names are loaded on first use (PEP 562): `import arena` and every
# command stay quick, and a command imports only the rooms it runs.
_WHERE = {
    "BotProcess": ".play._bot",
    "BadBotCommand": "._spec",
    "BotSpec": "._spec",
    "UsageError": "._checks",
    "GameError": ".play._guard",
    "BotHost": ".play._host",
    "open_bots": ".play._host",
    "open_host": ".play._host",
    "BotFault": "._faults",
    "Fault": "._faults",
    "FaultKind": "._faults",
    "PluginLoadError": "._games",
    "available_games": "._games",
    "load_game": "._games",
    "LineBuffer": ".play._lines",
    "MatchResult": ".play._match",
    "MatchSettings": ".play._match",
    "SeatResult": ".play._match",
    "SeriesResult": ".play._match",
    "run_match": ".play._match",
    "run_series": ".play._match",
    "Store": ".results._store",
    "StoreError": ".results._store",
    "open_store": ".results._store",
    "standings_of": ".results._report",
    "create_tournament": ".tournament._plan",
    "load_tournament": ".tournament._plan",
    "plan_tournament": ".tournament._plan",
    "Outcome": ".tournament._run",
    "Progress": ".tournament._run",
    "TournamentConfig": ".tournament._run",
    "run_tournament": ".tournament._run",
}


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'arena' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = sorted(_WHERE)
