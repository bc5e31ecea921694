"""Spawn-to-first-reply time of a C bot per sandbox level, side by side.

    python -m benchmarks.sandbox_spawn [N]

Each spawn starts sample_bots/kuhn3/build/rule_bot through the level's
launcher, sends the kuhn3 opening (Money/EndProb) and waits for READY; then
the bot is torn down as in a match. Levels are interleaved round-robin so
drift hits all alike; the table shows the median and p90 in ms.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import trio

from arena._bot import BotSpec, open_bots
from arena._sandbox import PlainLauncher, make_launcher, probe

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "sample_bots" / "kuhn3" / "build" / "rule_bot"


async def one(spec: BotSpec, launcher) -> float:
    started = time.perf_counter()
    async with open_bots([spec], log_dir=None, launcher=launcher, grace=0.5) as (bot,):
        now = trio.current_time()
        await bot.send(b"init_hand\nCards: J\nx\n", now + 5)
        await bot.receive_line(now + 5, now, "no reply")
        took = time.perf_counter() - started
    return took


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    if not BOT.exists():
        sys.exit(f"build {BOT} first (make bots)")
    info = probe()
    quiet = lambda text: None  # noqa: E731
    variants = {"none": PlainLauncher()}
    if info.basic_ok:
        variants["basic"] = make_launcher("basic", cgroups=False, warn=quiet)
        if info.cgroups.usable:
            variants["basic+cgroups"] = make_launcher("basic", warn=quiet)
    if info.strict_ok:
        variants["strict"] = make_launcher("strict", cgroups=False, warn=quiet)
        if info.cgroups.usable:
            variants["strict+cgroups"] = make_launcher("strict", warn=quiet)
    spec = BotSpec.parse(str(BOT))
    times: dict[str, list[float]] = {k: [] for k in variants}

    async def run() -> None:
        for name, launcher in variants.items():  # warm-up
            await one(spec, launcher)
        for _ in range(n):
            for name, launcher in variants.items():
                times[name].append(await one(spec, launcher))

    try:
        trio.run(run)
    finally:
        for launcher in variants.values():
            launcher.close()
    print(f"spawn to first reply, C bot, N={n} per level (ms)")
    print(f"{'level':<16} {'median':>8} {'p90':>8} {'+median':>8}")
    base = statistics.median(times["none"])
    for name, values in times.items():
        values.sort()
        med = statistics.median(values)
        p90 = values[int(0.9 * (len(values) - 1))]
        print(f"{name:<16} {med * 1e3:8.2f} {p90 * 1e3:8.2f} {(med - base) * 1e3:8.2f}")


if __name__ == "__main__":
    main()
