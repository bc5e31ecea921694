"""What two colluding bots can still pass each other: each channel measured.

    python -m benchmarks.covert_channels [--level strict|basic|none] [--bits N] [--league]

Two bot processes are started through the arena's own host at the chosen
level (default: this machine's), as two seats of one match would be, pinned
to one core as a tournament worker pins a match. One sends random bits
through a channel in slots of a fixed length on the wall clock they share,
the other decides each bit from what it sees (benchmarks/covert_peer.py).
For each channel: the raw rate (slots a second), the bit error rate, and the
capacity of a binary symmetric channel with that error rate, in bits a
second (0 when the error rate is within two standard deviations of coin
flips): what a bot pair could pass reliably with coding. A kuhn3 card is 2
bits, a hold'em hand's two hole cards about 10.6.

The thresholds are the receiver's: the midpoint of its two clusters of
measures (2-means, over their logarithms when they span decades), as an
attacker would calibrate them.

``--league`` runs the bots as a duplicate tournament and the league do
(``SandboxPolicy.private_files``: the system files held in the page cache);
otherwise the page-cache channel's pages are first evicted, as on a machine
that has not read them lately.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path

import trio

from arena import BotSpec
from arena.play._host import open_bots, open_host
from arena.sandbox import SandboxPolicy

PEER = Path(__file__).resolve().parent / "covert_peer.py"
#: (channel, slot lengths in seconds, the receiver's measure is "more means 1" (True) or "less" (False))
CHANNELS = [
    ("futex", (0.004, 0.001, 0.0005), True),
    ("threads", (0.02, 0.005, 0.002), True),
    ("forks", (0.02, 0.005, 0.002), True),
    ("files", (0.01, 0.002, 0.001), True),
    ("cpu", (0.005, 0.002), False),
    ("pagecache", (0.002, 0.0005), False),
]


def largest_system_file() -> Path:
    return max((p for p in Path("/usr/lib").rglob("*") if p.is_file() and not p.is_symlink()),
               key=lambda p: p.stat().st_size)


def entropy(p: float) -> float:
    return 0.0 if p in (0.0, 1.0) else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def decide(samples: list[float], more_is_one: bool) -> list[str]:
    if min(samples) > 0 and max(samples) / min(samples) > 20:  # times over decades: cluster their logarithms
        samples = [math.log(s) for s in samples]
    low, high = min(samples), max(samples)
    mid = (low + high) / 2
    for _ in range(20):  # two clusters: each mean, then the midpoint between them
        a = [s for s in samples if s <= mid] or [low]
        b = [s for s in samples if s > mid] or [high]
        mid = (statistics.mean(a) + statistics.mean(b)) / 2
    return [("1" if s > mid else "0") if more_is_one else ("1" if s < mid else "0") for s in samples]


async def measure(host, channel: str, period: float, more_is_one: bool, bits: str, target: Path,
                  offset: int) -> tuple[float, float]:
    py = sys.executable
    specs = [BotSpec.parse(f"{py} {PEER}", name="sender"), BotSpec.parse(f"{py} {PEER}", name="receiver")]
    async with open_bots(specs, host=host, grace=0.5) as (sender, receiver):
        await trio.sleep(0.3)  # both have started their interpreters
        t0 = time.time() + 0.5
        now = trio.current_time()
        sender.queue(f"send {channel} {t0} {period} {bits} {target} {offset}\n".encode(), now)
        receiver.queue(f"receive {channel} {t0} {period} {bits} {target} {offset}\n".encode(), now)
        deadline = trio.current_time() + len(bits) * period + 30
        line = await receiver.receive_line(deadline, "no result")
        await sender.receive_line(deadline, "no result")
    samples = [float(x) for x in line.split()[1:]]
    got = decide(samples, more_is_one) if channel != "futex" else [str(int(s)) for s in samples]
    errors = sum(a != b for a, b in zip(got, bits)) / len(bits)
    if abs(errors - 0.5) < 2 * math.sqrt(0.25 / len(bits)):
        return errors, 0.0  # within two standard deviations of coin flips: nothing passed
    return errors, (1 / period) * (1 - entropy(min(errors, 1 - errors)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", default=None)
    parser.add_argument("--bits", type=int, default=400)
    parser.add_argument("--league", action="store_true", help="as duplicate tournaments and the league run bots")
    args = parser.parse_args()
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as a worker runs a match
    target = largest_system_file()
    rng = random.Random(42)
    with open_host(args.level, SandboxPolicy(private_files=args.league)) as host:
        print(f"level {host.describe()}; {args.bits} bits a channel; system file {target}")
        print(f"{'channel':<10} {'slot':>7} {'raw bit/s':>10} {'errors':>8} {'capacity bit/s':>15}")
        best = {}
        for channel, periods, more in CHANNELS:
            for period in periods:
                bits = "".join(rng.choice("01") for _ in range(args.bits))
                offset = rng.randrange((target.stat().st_size - (4 << 20)) // 4096) * 4096
                if channel == "pagecache" and not args.league:  # cold, as on a machine that has not read it lately
                    fd = os.open(target, os.O_RDONLY)
                    os.posix_fadvise(fd, offset, 2 * 4096 * args.bits + 4096, os.POSIX_FADV_DONTNEED)
                    os.close(fd)
                errors, capacity = trio.run(measure, host, channel, period, more, bits, target, offset)
                best[channel] = max(best.get(channel, 0.0), capacity)
                print(f"{channel:<10} {period * 1000:>5.1f}ms {1 / period:>10.0f} {errors:>8.1%} {capacity:>15.0f}")
        print("best capacity, bit/s: " + ", ".join(f"{c} {b:.0f}" for c, b in best.items()))


if __name__ == "__main__":
    main()
