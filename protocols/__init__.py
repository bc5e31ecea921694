"""Sans-I/O wire protocols: render what a seat may know into lines, parse replies.

Nothing here does I/O or imports trio; the arena drives these dialogues.
"""

from ._errors import ProtocolError

__all__ = ["ProtocolError"]
