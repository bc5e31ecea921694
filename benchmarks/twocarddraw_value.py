"""`make bench`, TwoCardDraw: the exact value of a strategy, and the generator.

`arena strategy value` and `arena strategy generate` evaluate the best
response to a strategy (games/twocarddraw/_solve.py, numpy). Measured here
side by side with the plain-Python evaluator it replaced (_reference.py):
milliseconds per strategy_value() call (from the Strategy's tables, their
conversion to arrays included; the file's parsing not), on the sample
strategy files and random strategies, interleaved runs, median; then the
hill-climb's iterations per second over one sweep of all 4,155 situations.
Target: under 1 ms per strategy. Both must give the same values and files.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from pathlib import Path

from games.twocarddraw import _reference as ref
from games.twocarddraw import _solve as fast
from games.twocarddraw import parse_strategy, random_strategy

ROOT = Path(__file__).resolve().parent.parent
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
RANDOM = int(os.environ.get("BENCH_TCD_STRATEGIES", "12"))
ITERATIONS = int(os.environ.get("BENCH_TCD_ITERATIONS", "4155"))  # one sweep
TARGET_MS = 1.0


def strategies() -> list:
    files = sorted((ROOT / "sample_bots" / "twocarddraw").glob("strategy_*.txt"))
    out = [parse_strategy(f.read_text()) for f in files]
    rng = random.Random(2026)
    for _ in range(RANDOM):
        bet1 = rng.randint(1, 5)
        out.append(random_strategy(bet1, rng.randint(bet1, 3 * bet1), rng))
    return out


def ms_per_value(value, pool: list, repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        for s in pool:
            value(s)
    return (time.perf_counter() - started) * 1000 / (repeat * len(pool))


def iterations_per_second(generate) -> tuple[float, str]:
    started = time.perf_counter()
    s = generate(2, 4, ITERATIONS, random.Random(1))
    return ITERATIONS / (time.perf_counter() - started), repr(sorted(s.round2.items()))


def main() -> None:
    pool = strategies()
    worst = max(abs(fast.strategy_value(s) - ref.strategy_value(s)) for s in pool)
    print(f"twocarddraw strategy value: {len(pool)} strategies ({len(pool) - RANDOM} sample files, "
          f"{RANDOM} random); {RUNS} interleaved runs")
    old, new = [], []
    for i in range(RUNS):
        a = ms_per_value(ref.strategy_value, pool, 1)
        b = ms_per_value(fast.strategy_value, pool, 10)
        old.append(a)
        new.append(b)
        print(f"  run {i + 1}: reference {a:7.3f} ms   numpy {b:6.3f} ms   per strategy")
    a, b = statistics.median(old), statistics.median(new)
    verdict = "met" if b < TARGET_MS else "NOT met"
    print(f"ms per strategy value   reference {a:.3f}   numpy {b:.3f}   ratio {a / b:.1f}x "
          f"(target < {TARGET_MS} ms: {verdict}); largest difference {worst:.1e}")

    before, old_out = iterations_per_second(ref.generate)
    after, new_out = iterations_per_second(fast.generate)
    same = "same strategy" if old_out == new_out else "DIFFERENT strategies"
    print(f"generator hill-climb ({ITERATIONS} iterations, bet1=2 bet2=4): before {before:.0f} it/s   "
          f"after {after:.0f} it/s   ratio {after / before:.1f}x; {same}")


if __name__ == "__main__":
    main()
