"""`make bench`: the arena's cost per exchange against the pipe floor.

In one run, interleaved, both pinned to the same core (a wake-up across cores
costs ~20 µs in these VMs and would swamp both figures):

  floor  a blocking C parent and a C child echoing a kuhn3-sized message:
         round trips per second, the least one request/response can cost;
  arena  `arena kuhn3` with three C sample bots and full validation:
         hands per second and exchanges per hand, from the match's --json.

Prints each run, the medians, and the ratio of the costs per exchange.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "benchmarks" / "build"
C_BOT = ROOT / "sample_bots" / "kuhn3" / "build" / "rule_bot"
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
HANDS = int(os.environ.get("BENCH_HANDS", "20000"))
FLOOR_SECONDS = float(os.environ.get("BENCH_FLOOR_SECONDS", "2"))
CORE = os.environ.get("BENCH_CORE", "0")
TARGET = 1.5


def build_floor() -> Path:
    BUILD.mkdir(parents=True, exist_ok=True)
    exe = BUILD / "pipe_echo_floor"
    src = ROOT / "benchmarks" / "pipe_echo_floor.c"
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-o", str(exe), str(src)], check=True)
    return exe


def pinned(cmd: list[str]) -> list[str]:
    return ["taskset", "-c", CORE, *cmd] if shutil.which("taskset") else cmd


def floor_run(exe: Path) -> float:
    out = subprocess.run(pinned([str(exe), str(FLOOR_SECONDS)]), capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def arena_run(seed: int, game: str = "kuhn3", bots: list[str] | None = None,
              hands: int = HANDS) -> tuple[float, float]:
    """(hands per second, exchanges per hand) of one match of C bots
    (default: a kuhn3 round of the C rule bot)."""
    bots = bots or [str(C_BOT)] * 3
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    out = subprocess.run(
        pinned([sys.executable, "-m", "arena", game, *bots,
                "--hands", str(hands), "--seed", str(seed), "--sandbox", "none", "--json"]),
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    if out.returncode != 0:
        sys.exit(f"the arena run failed (exit {out.returncode}):\n{out.stderr}")
    result = json.loads(out.stdout)
    return result["hands"] / result["duration"], result["exchanges"] / result["hands"]


def main() -> None:
    if not C_BOT.exists():
        sys.exit(f"{C_BOT} is missing: run `make bots` first")
    exe = build_floor()
    floors, arenas, per_hand = [], [], []
    print(f"kuhn3 throughput, pinned to core {CORE}; {RUNS} interleaved runs "
          f"({HANDS} hands per arena run, {FLOOR_SECONDS:g} s per floor run)")
    for i in range(RUNS):
        f = floor_run(exe)
        h, x = arena_run(seed=i + 1)
        floors.append(f)
        arenas.append(h)
        per_hand.append(x)
        print(f"  run {i + 1}: floor {f:>10,.0f} round trips/s   arena {h:>8,.0f} hands/s ({x:.2f} exchanges/hand)")
    floor = statistics.median(floors)
    hands = statistics.median(arenas)
    exchanges = statistics.median(per_hand)
    floor_us = 1e6 / floor
    arena_us = 1e6 / (hands * exchanges)
    ratio = arena_us / floor_us
    print(f"floor  (blocking C <-> C echo)            : {floor:>10,.0f} round trips/s = {floor_us:6.2f} us per exchange")
    print(f"arena  (kuhn3, 3 C bots, full validation) : {hands:>10,.0f} hands/s       = {arena_us:6.2f} us per exchange")
    verdict = "met" if ratio <= TARGET else "NOT met"
    print(f"ratio  arena / floor per exchange         : {ratio:.2f}x (target {TARGET}x: {verdict})")


if __name__ == "__main__":
    main()
