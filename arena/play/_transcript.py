"""Match transcripts, streamed to a gzip file as lines pass (never held in memory).

Format, one line per protocol line: ``[seconds] seat S -> text`` (sent to
the seat) or ``<-`` (its reply). Bot text is written as it was received;
readers escape it for display (``arena._text``).
"""

from __future__ import annotations

import gzip
import time
from pathlib import Path
from typing import IO


class Transcript:
    """A trace callable that writes every line to ``path`` as it goes."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.path = path
        self.started = time.perf_counter()
        self._out: IO[str] | None = gzip.open(path, "wt", encoding="utf-8", errors="backslashreplace")

    def __call__(self, seat: int, direction: str, text: str) -> None:
        out = self._out
        if out is None:
            return
        stamp = time.perf_counter() - self.started
        for line in text.splitlines() or [""]:
            out.write(f"[{stamp:10.6f}] seat {seat} {direction} {line}\n")

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None
