"""arena: bots in any language play card games over stdin/stdout.

This package is the only layer that does I/O (processes, pipes, clocks,
files, the command line). Rules live in ``games`` and wire formats in
``protocols``.
"""

from ._bot import BadBotCommand, BotProcess, BotSpec
from ._host import BotHost, open_bots, open_host
from ._faults import BotFault, Fault, FaultKind
from ._games import PluginLoadError, available_games, load_game
from ._lines import LineBuffer
from ._match import MatchResult, MatchSettings, SeatResult, SeriesResult, run_match, run_series

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
    "available_games",
    "load_game",
    "MatchResult",
    "MatchSettings",
    "SeatResult",
    "SeriesResult",
    "open_bots",
    "open_host",
    "run_match",
    "run_series",
]
