"""The closed set of ways a bot can fail a match, and the report of one.

Every failure of a bot becomes exactly one ``Fault`` of one ``FaultKind``;
nothing a bot does may surface as a Python exception from the arena.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum

from ._text import inert, inert_lines


class FaultKind(StrEnum):
    TIMEOUT = "timeout"  # no complete reply line before the deadline
    MALFORMED_REPLY = "malformed_reply"  # not a line the protocol allows here (incl. bad UTF-8, too long)
    ILLEGAL_ACTION = "illegal_action"  # well formed, but against the rules or the state (e.g. Money: check)
    DISCONNECTED = "disconnected"  # EOF on stdout / stdin closed, process exited 0 or still running
    CRASHED = "crashed"  # exited with a non-zero code or was killed by a signal
    FAILED_TO_START = "failed_to_start"  # the command could not be executed


class BotFault(Exception):
    """Raised by the I/O layer; the match runner adds seat, bot and context."""

    def __init__(
        self, kind: FaultKind, detail: str, received: str | None = None, *, seat: int | None = None
    ) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.received = received
        self.seat = seat  # set by whoever knows which seat the bot holds


@dataclass(slots=True)
class Fault:
    seat: int
    bot: str
    kind: FaultKind
    detail: str
    received: str | None = None  # the exact line, when there was one
    expected: str | None = None
    hand: int | None = None
    stderr_tail: str = ""
    stderr_log: str | None = None

    def to_json(self) -> dict:
        data = asdict(self)
        data["kind"] = str(self.kind)
        return data

    def hint(self) -> str | None:
        """The likely mistake behind the commonest faults of a new bot, in a sentence."""
        if self.detail.startswith("ACPC agent "):  # an ACPC agent's, in ACPC's words: no hint meant for other bots
            return None
        received = (self.received or "").strip()
        if self.kind == FaultKind.TIMEOUT and "flushed" in self.detail:
            want = f" ({self.expected})" if self.expected else ""
            return (f"a reply{want} must end with a newline and be flushed: print(..., flush=True) in Python "
                    "(or python3 -u), $| = 1 in Perl, fflush(stdout) in C; a pipe is not a terminal, so "
                    "output waits in a buffer")
        if self.kind == FaultKind.MALFORMED_REPLY and received:
            json_game = self.detail.startswith("not JSON")
            prose = " " in received and received[:1] not in "{[" and not json_game
            if (json_game and received[:1] not in "{[\"") or (prose and len(received.split()) >= 3):
                return ("this line looks like debug output: stdout carries replies only; write anything else "
                        "to stderr (print(..., file=sys.stderr) in Python, warn in Perl), which the arena logs")
        return None

    def describe(self) -> str:
        """A few lines for a human: who, what was received, what was expected.

        Everything the bot wrote is shown inert (control characters escaped).
        """
        where = f" in hand {self.hand}" if self.hand is not None else ""
        lines = [f"seat {self.seat} ({inert(self.bot)}): {self.kind}{where}: {inert(self.detail)}"]
        if self.received is not None:
            shown = self.received if len(self.received) <= 200 else self.received[:200] + "..."
            lines.append(f"  received: {shown!r}")  # repr escapes every non-printable character
        if self.expected:
            lines.append(f"  expected: {inert(self.expected)}")
        hint = self.hint()
        if hint:
            lines.append(f"  hint: {hint}")
        if self.stderr_tail:
            lines.append("  last lines of its stderr:")
            lines.extend("    " + ln for ln in inert_lines(self.stderr_tail)[-8:])
        if self.stderr_log:
            lines.append(f"  stderr log: {inert(self.stderr_log)}")
        return "\n".join(lines)
