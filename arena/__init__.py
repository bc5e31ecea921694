"""arena: bots in any language play card games over stdin/stdout.

This package is the only layer that does I/O (processes, pipes, clocks,
files, the command line). Rules live in ``games``, wire formats and the
game plugins in ``protocols``. The public API (docs/api.md): find a game
(``load_game``), describe bots (``BotSpec``), play a match or a series
(``run_match``, ``run_series`` with ``MatchSettings``), a tournament
(``plan_tournament``, ``create_tournament``, ``run_tournament``) and read
stored results (``open_store``, ``standings_of``).
"""

from .play._bot import BotProcess

from ._spec import BadBotCommand, BotSpec
from .play._host import BotHost, open_bots, open_host
from ._faults import BotFault, Fault, FaultKind
from ._games import PluginLoadError, available_games, load_game
from .play._lines import LineBuffer
from .play._match import MatchResult, MatchSettings, SeatResult, SeriesResult, run_match, run_series
from .results._store import Store, StoreError, open_store
from .results._report import standings_of
from .tournament._plan import create_tournament, load_tournament, plan_tournament
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
    "create_tournament",
    "load_game",
    "load_tournament",
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
    "plan_tournament",
    "run_match",
    "run_series",
    "run_tournament",
    "standings_of",
]
