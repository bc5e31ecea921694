"""`make bench`, part 2: tournament throughput with --jobs 2 against --jobs 1.

The same kuhn3 tournament (4 C bots, every seating, 24 matches) runs with one
and with two pinned worker processes, interleaved; prints matches per second
and the ratio (target >= 1.9 on a 2-core machine).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "sample_bots" / "kuhn3" / "build"
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
HANDS = int(os.environ.get("BENCH_TOURNAMENT_HANDS", "3000"))
TARGET = 1.9


def run(jobs: int, folder: Path, i: int) -> float:
    bots = [str(BUILD / "rule_bot"), str(BUILD / "rule_bot_rs")] * 2
    db = folder / f"j{jobs}-{i}.db"
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "kuhn3", *bots, "--seed", str(i), "--jobs", str(jobs),
         "--db", str(db), "-p", f"hands={HANDS}", "--sandbox", "none", "--json"],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    elapsed = time.perf_counter() - started
    if out.returncode != 0:
        sys.exit(f"tournament failed:\n{out.stderr}")
    return 24 / elapsed


def main() -> None:
    print(f"tournament throughput: kuhn3, 4 C bots, 24 matches of {HANDS} hands; {RUNS} interleaved runs")
    one, two = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(RUNS):
            a = run(1, Path(tmp), i)
            b = run(2, Path(tmp), i)
            one.append(a)
            two.append(b)
            print(f"  run {i + 1}: --jobs 1 {a:6.2f} matches/s   --jobs 2 {b:6.2f} matches/s")
    ratio = statistics.median(two) / statistics.median(one)
    verdict = "met" if ratio >= TARGET else "NOT met"
    print(f"ratio  --jobs 2 / --jobs 1 throughput       : {ratio:.2f}x (target {TARGET}x: {verdict})")


if __name__ == "__main__":
    main()
