"""A sans-I/O line splitter with a length bound and strict UTF-8."""

from __future__ import annotations

from .._faults import BotFault, FaultKind

DEFAULT_MAX_LINE = 64 * 1024


class LineBuffer:
    """Collects bytes and hands out whole lines (without ``\\n`` or ``\\r\\n``).

    A line longer than ``max_line`` bytes, or one that is not valid UTF-8,
    raises ``BotFault(MALFORMED_REPLY)``: a bot cannot make the arena buffer
    without bound.
    """

    __slots__ = ("_buf", "_scanned", "max_line")

    def __init__(self, max_line: int = DEFAULT_MAX_LINE) -> None:
        self._buf = bytearray()
        self._scanned = 0  # bytes already known to hold no newline
        self.max_line = max_line

    def __len__(self) -> int:
        return len(self._buf)

    def pending(self) -> bytes:
        """Bytes received after the last complete line."""
        return bytes(self._buf)

    def feed(self, data: bytes) -> None:
        self._buf += data

    def next_line(self) -> str | None:
        raw = self.next_raw()
        return None if raw is None else decode_line(raw)

    def next_raw(self) -> bytes | None:
        """The next whole line as received (without its ``\n``), or None."""
        buf = self._buf
        i = buf.find(b"\n", self._scanned)
        if i < 0:
            self._scanned = len(buf)
            if len(buf) > self.max_line:
                raise BotFault(
                    FaultKind.MALFORMED_REPLY,
                    f"line longer than {self.max_line} bytes without a newline",
                    received=_preview(bytes(buf[:120])),
                )
            return None
        if i > self.max_line:
            raise BotFault(
                FaultKind.MALFORMED_REPLY,
                f"line of {i} bytes is longer than the limit of {self.max_line}",
                received=_preview(bytes(buf[:120])),
            )
        raw = bytes(buf[:i])
        del buf[: i + 1]
        self._scanned = 0
        return raw


def decode_line(raw: bytes) -> str:
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BotFault(
            FaultKind.MALFORMED_REPLY,
            f"reply is not valid UTF-8 (byte {exc.start}: {raw[exc.start:exc.start + 1]!r})",
            received=_preview(raw),
        ) from None


def _preview(raw: bytes) -> str:
    return raw.decode("utf-8", errors="backslashreplace")
