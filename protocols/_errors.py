"""The one error a protocol raises when a bot's reply is wrong."""

from __future__ import annotations


class ProtocolError(Exception):
    """A reply that breaks the protocol.

    ``kind`` is ``"malformed_reply"`` (the line is not what may be said here)
    or ``"illegal_action"`` (well formed, but against the rules or the state).
    """

    def __init__(self, seat: int, kind: str, received: str, expected: str, reason: str) -> None:
        super().__init__(reason)
        self.seat = seat
        self.kind = kind
        self.received = received
        self.expected = expected
        self.reason = reason

    def __str__(self) -> str:
        return f"seat {self.seat}: {self.reason} (received {self.received!r}, expected {self.expected})"
