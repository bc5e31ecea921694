"""Pure game rules: engines with an explicit chance step, and their parameters.

Nothing here does I/O or knows a wire format. The wire dialogues and the
plugin objects the arena loads are in ``protocols``.
"""

from ._base import GameSpec, IllegalAction

__all__ = ["GameSpec", "IllegalAction"]
