"""A tournament worker: plays the matches it is sent, one at a time, pinned to one core.

Run as ``python -m arena._worker CORE``. Jobs arrive as JSON lines on stdin and
results leave as JSON lines on stdout. The worker pins itself (and so the
bots it starts, which inherit the affinity) to CORE: on these VMs a wake-up
across cores costs about 20 µs, and one pinned process per core is what
scales (shared research: pipe-bench).
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import sys
import time
from pathlib import Path

import trio

from games import load_game

from ._bot import BotSpec
from ._match import MatchSettings, run_match

class Transcript:
    """Every line of a match, with time and seat, written gzip-compressed at the end."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.lines: list[tuple[float, int, str, str]] = []

    def __call__(self, seat: int, direction: str, text: str) -> None:
        self.lines.append((time.perf_counter() - self.started, seat, direction, text))

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt", encoding="utf-8") as out:
            for stamp, seat, direction, text in self.lines:
                for line in text.splitlines() or [""]:
                    out.write(f"[{stamp:10.6f}] seat {seat} {direction} {line}\n")


_launchers: dict = {}


def _launcher(level: str | None):
    """One sandbox launcher per worker and level (it owns uids and cgroups per seat)."""
    if level not in _launchers:
        from ._sandbox import make_launcher

        _launchers[level] = make_launcher(level)
    return _launchers[level]


async def play_job(job: dict) -> dict:
    plugin = load_game(job["game"])
    specs = [BotSpec.parse(b["command"], name=b["name"]) for b in job["bots"]]
    transcript = Transcript()
    settings = MatchSettings(
        timeout=job["timeout"],
        budget=job.get("budget"),
        log_dir=Path(job["log_dir"]) if job.get("log_dir") else None,
        trace=transcript if job.get("transcript") else None,
        launcher=_launcher(job.get("sandbox")),
    )
    result = await run_match(plugin, specs, plugin.Params(**job["params"]), job["seed"], settings)
    if job.get("transcript"):
        transcript.write(Path(job["transcript"]))
    data = result.to_json()
    data["sandbox"] = settings.launcher.describe() if settings.launcher is not None else "none"
    return {"key": job["key"], "result": data}


async def serve() -> None:
    """Play jobs until stdin closes; a close in the middle of a job means the
    coordinator is gone, so the job is abandoned (its bots are ended)."""
    stdin = trio.lowlevel.FdStream(os.dup(sys.stdin.fileno()))
    send, receive = trio.open_memory_channel[dict](1)
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def on_signal() -> None:
                async for _ in signals:
                    nursery.cancel_scope.cancel()
                    return

            async def read_jobs() -> None:
                buffer = b""
                while True:
                    chunk = await stdin.receive_some(65536)
                    if not chunk:
                        nursery.cancel_scope.cancel()
                        return
                    buffer += chunk
                    while b"\n" in buffer:
                        line, _, buffer = buffer.partition(b"\n")
                        await send.send(json.loads(line))

            nursery.start_soon(on_signal)
            nursery.start_soon(read_jobs)
            async for job in receive:
                reply = await play_job(job)
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


def main() -> None:
    core = int(sys.argv[1]) if len(sys.argv) > 1 else None
    if core is not None:
        try:
            os.sched_setaffinity(0, {core % os.cpu_count()})
        except OSError:
            pass  # affinity is an optimisation, not a requirement
    try:
        trio.run(serve)
    except KeyboardInterrupt:
        pass
    finally:
        for launcher in _launchers.values():
            launcher.close()


if __name__ == "__main__":
    main()
