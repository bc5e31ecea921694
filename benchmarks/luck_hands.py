"""`make bench`: the hands ``--aivat`` saves for the same interval width.

Fixed bots play the same matches (same hands, same keyed seeds) once each;
``--aivat`` reports, beside each bot's plain mean per hand, the means with
the luck of the cards taken out (protocols/luck.py), each with its 95%
interval. An interval's width goes as 1/sqrt(hands), so (plain width /
adjusted width)^2 is how many times more hands the plain mean needs for the
interval the adjusted one has: the hands saved. Printed per case, the first
bot's, as the median over a few seeds.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SB = ROOT / "sample_bots"
PY = sys.executable
SEEDS = int(os.environ.get("BENCH_LUCK_SEEDS", "3"))

# name -> (game, bots, options, estimate)
CASES: dict[str, tuple[str, list[str], list[str], str]] = {
    "kuhn3, three C rule bots": ("kuhn3", [str(SB / "kuhn3/build/rule_bot"), str(SB / "kuhn3/build/rule_bot_rs"),
                                           str(SB / "kuhn3/build/rule_bot")], ["--hands", "20000"], "aivat"),
    "hold'em heads-up, rule_bot vs call_bot": ("holdem", [str(SB / "holdem/build/rule_bot"),
                                                          str(SB / "holdem/build/call_bot")], ["--hands", "3000"], "aivat"),
    "hold'em heads-up, all in every hand vs call_bot": (
        "holdem", [str(ROOT / "tests/bots/shove_holdem.py"), str(SB / "holdem/build/call_bot")], ["--hands", "1000"],
        "allin"),
}


def widths(game: str, bots: list[str], options: list[str], kind: str, seed: int) -> tuple[float, float]:
    """The first bot's plain and adjusted 95% interval widths (mbb/g)."""
    run = subprocess.run([PY, "-m", "arena", game, *bots, *options, "--seed", f"{seed}:{'b' * 32}",
                          "--sandbox", "none", "--aivat", "--json"], capture_output=True, text=True, cwd=ROOT)
    if run.returncode != 0:
        sys.exit(f"{game} failed ({run.returncode}):\n{run.stderr}")
    luck = json.loads(run.stdout)["seats"][0]["luck"]
    return (luck["plain"]["ci_high"] - luck["plain"]["ci_low"], luck[kind]["ci_high"] - luck[kind]["ci_low"])


def main() -> None:
    print(f"--aivat: hands saved for the same 95% interval width, first bot, median of {SEEDS} seeds")
    for name, (game, bots, options, kind) in CASES.items():
        found = [widths(game, bots, options, kind, seed) for seed in range(1, SEEDS + 1)]
        plain = statistics.median(p for p, _ in found)
        adjusted = statistics.median(a for _, a in found)
        saved = statistics.median((p / a) ** 2 for p, a in found)
        hands = options[options.index("--hands") + 1]
        print(f"  {name} ({hands} hands, {kind}): interval {plain:,.0f} -> {adjusted:,.0f} mbb/g wide; "
              f"the plain mean needs {saved:.1f}x the hands")


if __name__ == "__main__":
    main()
