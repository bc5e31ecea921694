"""arena: bots in any language play card games over stdin/stdout.

This package is the only layer that does I/O (processes, pipes, clocks,
files, the command line). Rules live in ``games``, wire formats and the
game plugins in ``protocols``. The public API (docs/api.md): find a game
(``load_game``), describe bots (``BotSpec``), play a match or a series
(``run_match``, ``run_series`` with ``MatchSettings``), a tournament
(``run_tournament``) and read stored results (``open_store``).
"""

from .play._bot import BotProcess

from ._spec import BadBotCommand, BotSpec
from .play._host import BotHost, open_bots, open_host
from ._faults import BotFault, Fault, FaultKind
from ._games import PluginLoadError, available_games, load_game
from .play._lines import LineBuffer
from .play._match import MatchResult, MatchSettings, SeatResult, SeriesResult, run_match, run_series
from .results._store import Store, StoreError, open_store
from .tournament._run import Outcome, Progress, TournamentConfig, run_tournament

__all__ = [
    "BadBotCommand",
    "BotHost",
    "BotFault",
    "BotProcess",
    "BotSpec",
    "Fault",
    "FaultKind",
    "LineBuffer",
    "PluginLoadError",
    "Progress",
    "available_games",
    "load_game",
    "MatchResult",
    "MatchSettings",
    "Outcome",
    "SeatResult",
    "SeriesResult",
    "Store",
    "StoreError",
    "TournamentConfig",
    "open_bots",
    "open_host",
    "open_store",
    "run_match",
    "run_series",
    "run_tournament",
]
