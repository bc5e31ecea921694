"""What the sandbox costs, per level, side by side in one run.

    python -m benchmarks.sandbox_spawn [N]

1. Spawn to first reply: sample_bots/kuhn3/build/rule_bot started through
   each level's launcher (the supervisor included), the kuhn3 opening sent,
   READY awaited, then torn down as in a match.
2. Per match: a one-hand kuhn3 match between three C bots, every bot a fresh
   process with fresh private spaces (namespaces, its own /tmp and /dev/shm,
   its own cgroups and uid where the level has them). The overhead is the
   difference to ``none``.

Levels are interleaved round-robin so that drift hits all alike; the tables
show the median and p90 in ms.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import trio

from arena import BotSpec, MatchSettings, run_match
from arena.play._host import BotHost, open_bots
from arena.sandbox import open_launcher, probe
from arena import load_game

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "sample_bots" / "kuhn3" / "build" / "rule_bot"
KUHN3 = load_game("kuhn3")


async def spawn_once(spec: BotSpec, host: BotHost) -> float:
    started = time.perf_counter()
    async with open_bots([spec], host=host, grace=0.5) as (bot,):
        now = trio.current_time()
        bot.queue(b"init_hand\nCards: J\nx\n", now)
        await bot.receive_line(now + 5, "no reply")
        took = time.perf_counter() - started
    return took


async def match_once(spec: BotSpec, host: BotHost) -> float:
    started = time.perf_counter()
    result = await run_match(KUHN3, [spec] * 3, KUHN3.Params(hands=1), 1, MatchSettings(host=host))
    assert result.completed, result.faults
    return time.perf_counter() - started


def _table(title: str, times: dict[str, list[float]]) -> None:
    print(title)
    print(f"{'level':<16} {'median':>8} {'p90':>8} {'+median':>8}")
    base = statistics.median(times["none"])
    for name, values in times.items():
        values.sort()
        med = statistics.median(values)
        p90 = values[int(0.9 * (len(values) - 1))]
        print(f"{name:<16} {med * 1e3:8.2f} {p90 * 1e3:8.2f} {(med - base) * 1e3:8.2f}")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    if not BOT.exists():
        sys.exit(f"build {BOT} first (make bots)")
    info = probe()
    quiet = lambda text: None  # noqa: E731
    hosts = {"none": BotHost(open_launcher("none"))}
    for level in ("basic", "strict"):
        if info.works(level):
            hosts[level] = BotHost(open_launcher(level, cgroups=False, warn=quiet))
            if info.cgroups.usable:
                hosts[f"{level}+cgroups"] = BotHost(open_launcher(level, warn=quiet))
    spec = BotSpec.parse(str(BOT))
    spawns: dict[str, list[float]] = {k: [] for k in hosts}
    matches: dict[str, list[float]] = {k: [] for k in hosts}

    async def run() -> None:
        for host in hosts.values():  # warm-up
            await spawn_once(spec, host)
            await match_once(spec, host)
        for _ in range(n):
            for name, host in hosts.items():
                spawns[name].append(await spawn_once(spec, host))
                matches[name].append(await match_once(spec, host))

    try:
        trio.run(run)
    finally:
        for host in hosts.values():
            host.close()
    _table(f"spawn to first reply, C bot, N={n} per level (ms)", spawns)
    print()
    _table(f"one-hand kuhn3 match, 3 fresh C bots, N={n} per level (ms); +median = the fresh "
           "private spaces' overhead per match", matches)


if __name__ == "__main__":
    main()
