"""`make bench`, part 4: how much --duplicate narrows the standings' intervals.

For each game, one fixed set of sample bots plays the same tournament (same
rounds, same hands per match, same tournament seeds) with and without
``--duplicate``; prints the mean 95% half-width of the first entrant's
interval over a few tournament seeds, and the ratio duplicate / plain (below
1: the same number of hands tells the bots apart more sharply).

The interval of a duplicate tournament counts each deal (all its seatings) as
one observation, so fewer observations must beat more, noisier ones.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SB = ROOT / "sample_bots"
PY = sys.executable
SEEDS = int(os.environ.get("BENCH_DUPLICATE_SEEDS", "3"))

# game -> (entrants, parameters, rounds)
CASES: dict[str, tuple[list[str], list[str], int]] = {
    "kuhn3": ([f"a={SB / 'kuhn3/build/rule_bot'}", f"b={SB / 'kuhn3/build/rule_bot_rs'}",
               f"c={PY} {SB / 'kuhn3/random_bot.py'} --seed 1"], ["-p", "hands=300"], 6),
    "vonneumann": ([f"a={SB / 'vonneumann/build/kuhn3'}", f"b={SB / 'vonneumann/build/likeme'}"],
                   ["-p", "sessions=20"], 12),
    "twocarddraw": ([f"a={PY} {ROOT / 'shims/python/twocarddraw_runner.py'} {SB / 'twocarddraw/pair_of_fours.py'}",
                     f"b={PY} {SB / 'twocarddraw/random_bot.py'} --seed 1"], ["-p", "hands=300"], 12),
    "rpsdraft": ([f"a={PY} {SB / 'rpsdraft/odds_bot.py'}", f"b={PY} {SB / 'rpsdraft/simple_bot.py'}"], [], 12),
}


def half_width(game: str, duplicate: bool, seed: int, folder: Path) -> float:
    bots, params, rounds = CASES[game]
    db = folder / f"{game}-{int(duplicate)}-{seed}.db"
    argv = [PY, "-m", "arena", "tournament", game, *bots, *params, "--rounds", str(rounds),
            "--seed", str(seed), "--db", str(db), "--jobs", "2", "--sandbox", "none", "--json"]
    if duplicate:
        argv.append("--duplicate")
    out = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        sys.exit(f"{game} tournament failed:\n{out.stderr}")
    result = json.loads(out.stdout)
    faulted = [m for m in result["match_list"] if m["faults"]]
    if faulted:  # a fault's score would measure the fault, not the deal
        sys.exit(f"{game}: {len(faulted)} matches faulted, e.g. {faulted[0]}")
    row = next(r for r in result["standings"] if r["bot"] == "a")
    return (row["ci_high"] - row["ci_low"]) / 2


def main() -> None:
    print(f"95% interval half-width of entrant a, with and without --duplicate ({SEEDS} tournament seeds each)")
    with tempfile.TemporaryDirectory() as tmp:
        for game, (bots, params, rounds) in CASES.items():
            plain = statistics.fmean(half_width(game, False, s, Path(tmp)) for s in range(SEEDS))
            dup = statistics.fmean(half_width(game, True, s, Path(tmp)) for s in range(SEEDS))
            size = " ".join(params[1::2]) or "defaults"
            print(f"  {game:<12} {rounds:2} rounds, {size:<13} plain +/-{plain:9.3f}   duplicate +/-{dup:9.3f}   "
                  f"ratio duplicate / plain: {dup / plain:.2f}x")


if __name__ == "__main__":
    main()
