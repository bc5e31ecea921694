"""A bot's stderr: kept flowing, logged up to a cap, its tail kept for fault reports."""

from __future__ import annotations

from pathlib import Path

import trio

DEFAULT_STDERR_CAP = 1024 * 1024
#: Past the cap, a bot's stderr is taken at most this fast (bytes a second): the
#: rest waits in the pipe and a bot writing more waits on it, at its own cost.
#: Drained as fast as it came, a flood cost the arena 1.6 s of CPU in a 1.9 s match.
PAST_CAP_RATE = 16 * 1024 * 1024
STDERR_TAIL = 2048


class StderrLog:
    """The read end of one bot's stderr, and what was read of it."""

    def __init__(self, fd: int, path: Path | None) -> None:
        self._fd = fd
        self.path = path
        self.tail = bytearray()
        self.size = 0  # bytes the bot wrote, logged or not

    def text(self) -> str:
        return bytes(self.tail).decode("utf-8", "backslashreplace")

    async def drain(self, cap: int) -> None:
        """Until the bot's stderr closes: at most ``cap`` bytes go to the log, and
        past them it is read at most ``PAST_CAP_RATE`` bytes a second."""
        stream = trio.lowlevel.FdStream(self._fd)
        log = open(self.path, "wb") if self.path is not None else None  # noqa: SIM115
        past_since: float | None = None  # when the cap was reached
        try:
            while True:
                chunk = await stream.receive_some(65536)
                if not chunk:
                    break
                if log is not None and self.size < cap:
                    log.write(chunk[: cap - self.size])
                    log.flush()
                self.size += len(chunk)
                self.tail += chunk
                del self.tail[:-STDERR_TAIL]
                if self.size > cap:
                    now = trio.current_time()
                    past_since = now if past_since is None else past_since
                    ahead = (self.size - cap) / PAST_CAP_RATE - (now - past_since)
                    if ahead > 0:
                        await trio.sleep(ahead)
        except (trio.ClosedResourceError, trio.BrokenResourceError, OSError):
            pass
        finally:
            with trio.CancelScope(shield=True):
                await stream.aclose()
            if log is not None:
                if self.size > cap:
                    log.write(f"\n[arena: stderr capped at {cap} bytes; {self.size - cap} more bytes dropped]\n"
                              .encode())
                log.close()
