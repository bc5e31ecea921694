"""The ACPC dealer and the arena on the same two ACPC agents, in no-limit and
limit hold'em (`make bench`; benchmarks.holdem_speed also runs the dealer,
beside the other hold'em ratios).

Both play heads-up no-limit hold'em (stacks 20000, blinds 50/100, the ACPC
package's holdem.nolimit.2p.reverse_blinds.game), then heads-up limit
hold'em (its holdem.limit.2p.reverse_blinds.game, which the arena reads
with --gamedef), between two copies of the package's example_player, every process pinned to one core. The ACPC
package is ../shared/acpc beside the checkout (ARENA_ACPC_DIR to say
otherwise); its dealer and example_player are compiled here, into
benchmarks/build/acpc. The arena plays the agents as `acpc:` bots
(docs/acpc.md) at sandbox level none: the relay starts each agent and hands
its connection over, and the arena then speaks to it directly. Prints hands/s of both and their ratio (the speed issue,
"Hold'em at the ACPC dealer's speed", sets the target).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.kuhn3_throughput import ROOT, RUNS, pinned

ACPC = Path(os.environ.get("ARENA_ACPC_DIR", ROOT.parent / "shared" / "acpc"))
BUILD = ROOT / "benchmarks" / "build" / "acpc"
GAME = "holdem.nolimit.2p.reverse_blinds.game"
LIMIT_GAME = "holdem.limit.2p.reverse_blinds.game"
#: how the arena is told each game: no-limit by its parameters (as the league plays it), limit by the file
ARENA_GAME = {GAME: ["--stack", "20000", "--small-blind", "50", "--big-blind", "100"],
              LIMIT_GAME: ["--gamedef", str(ACPC / LIMIT_GAME)]}
DEALER_HANDS = int(os.environ.get("BENCH_ACPC_DEALER_HANDS", "20000"))
ARENA_HANDS = int(os.environ.get("BENCH_ACPC_ARENA_HANDS", "2000"))


def build() -> dict[str, Path]:
    if not (ACPC / "dealer.c").exists():
        sys.exit(f"the ACPC server package is not at {ACPC} (set ARENA_ACPC_DIR)")
    BUILD.mkdir(parents=True, exist_ok=True)
    out = {}
    for name in ("dealer", "example_player"):
        exe = BUILD / name
        subprocess.run(["gcc", "-O2", "-o", str(exe), f"{name}.c", "game.c", "rng.c", "net.c", "-lm"],
                       cwd=ACPC, check=True)
        out[name] = exe
    return out


def dealer_run(exe: dict[str, Path], seed: int, game: str = GAME) -> float:
    """Hands per second of the ACPC dealer, from its start to its end."""
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        dealer = subprocess.Popen(
            pinned([str(exe["dealer"]), "bench", str(ACPC / game), str(DEALER_HANDS), str(seed), "a", "b", "-l",
                    "-q"]),
            cwd=scratch, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert dealer.stdout is not None
        ports = dealer.stdout.readline().split()  # the dealer says where it listens, one port a seat
        players = [subprocess.Popen(pinned([str(exe["example_player"]), str(ACPC / game), "127.0.0.1", port]),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for port in ports]
        dealer.wait()
        took = time.perf_counter() - started
        for p in players:
            p.wait()
    if dealer.returncode != 0:
        sys.exit(f"the ACPC dealer failed (exit {dealer.returncode})")
    return DEALER_HANDS / took


def arena_run(exe: dict[str, Path], seed: int, game: str = GAME) -> float:
    agent = f"acpc:{exe['example_player']} {{gamedef}}"
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    out = subprocess.run(
        pinned([sys.executable, "-m", "arena", "holdem", agent, agent, *ARENA_GAME[game], "--hands", str(ARENA_HANDS),
                "--seed", str(seed), "--sandbox", "none", "--json"]),
        capture_output=True, text=True, env=env, cwd=ROOT)
    if out.returncode != 0:
        sys.exit(f"the arena run failed (exit {out.returncode}):\n{out.stderr[-2000:]}")
    result = json.loads(out.stdout)
    return result["hands"] / result["duration"]


def main() -> None:
    exe = build()
    print(f"ACPC dealer and arena, two example_players, heads-up; {RUNS} interleaved runs "
          f"({DEALER_HANDS} dealer hands, {ARENA_HANDS} arena hands per run), pinned to one core")
    ratios = {}
    for game, words in ((GAME, "no-limit"), (LIMIT_GAME, "limit")):
        dealers, arenas = [], []
        for i in range(RUNS):
            d = dealer_run(exe, seed=i + 1, game=game)
            a = arena_run(exe, seed=i + 1, game=game)
            dealers.append(d)
            arenas.append(a)
            print(f"  {words} run {i + 1}: ACPC dealer {d:>9,.0f} hands/s   arena {a:>8,.0f} hands/s")
        d, a = statistics.median(dealers), statistics.median(arenas)
        ratios[words] = d / a
        print(f"{words:>8}: ACPC dealer {d:>9,.0f} hands/s, arena {a:>9,.0f} hands/s: "
              f"the dealer is {d / a:.1f} times as fast")
    print(f"ratio of ratios: limit {ratios['limit'] / ratios['no-limit']:.2f} times no-limit's "
          "(1: the arena keeps the dealer's pace in both)")


if __name__ == "__main__":
    main()
