"""Sans-I/O wire protocols and the game contract.

Each game's plugin object (what the ``arena.games`` entry point names) lives
here, next to its wire dialogue: it sees the rules (``games``) and the wire.
Nothing here does I/O or imports trio; the arena drives these dialogues.
"""

from ._contract import (
    CompiledDialogue, DemoBot, Dialogue, DialogueRun, Exchange, GamePlugin, MatchOutcome, private_chance,
)
from ._errors import ProtocolError

__all__ = ["CompiledDialogue", "DemoBot", "Dialogue", "DialogueRun", "Exchange", "GamePlugin", "MatchOutcome", "ProtocolError",
           "private_chance"]
