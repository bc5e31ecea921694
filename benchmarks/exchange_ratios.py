"""`make bench`: the arena against the least that could do its job (issue 14, item 5).

In one run, interleaved, everything pinned to the same core (dealer and
bots alike: a wake-up across cores costs ~20 µs in these VMs), three ratios:

  (a) kuhn3, cost per exchange: the arena / the C echo floor (target <= 1.5x),
      with benchmarks.kuhn3_throughput's own floor and arena runs;
  (b) kuhn3, hands/s: the arena / a minimal blocking Python dealer
      (benchmarks.minimal_dealers) with the same three C rule bots and the
      same number of hands (target >= 1.0x);
  (c) vonneumann (JSON lines), games/s: the arena / a minimal JSON-lines
      dealer, the same two C bots, the same number of games (target >= 1.0x).

Fair because both sides play the same choreography with the same bots and
seed, and both are timed from the first message to the last reply, bot
start-up excluded (the arena's --json `duration`). The minimal dealers draw
from random.Random(seed) in the arena's order, so today the very same hands
are dealt (equal exchange counts); should the arena's draws change, only the
cards would differ and exchanges per hand would still agree within noise.
Exchanges per hand are printed for both sides as the check that they do the
same work. Each side runs RUNS times, interleaved; a ratio is the median of
the runs' own ratios (benchmarks/_paired.py), the ratio of the medians beside it.

Beside (a) it prints, as a reference and not a target, the minimal dealer's
own cost per exchange over the floor: the same bots driven by a dealer that
checks nothing, which is about as low as (a) can go with these bots.

`--save FILE` writes the medians as JSON; `--before FILE` prints them beside
those of an earlier run. `make bench` passes benchmarks/baselines/
exchange_ratios-2026-11-24.json: the figures before the native exchange loop,
the compiled kuhn3 dialogue and the JSON hot path (issue 14).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks._paired import paired
from benchmarks.kuhn3_throughput import (
    C_BOT,
    CORE,
    FLOOR_SECONDS,
    HANDS,
    ROOT,
    RUNS,
    arena_run,
    build_floor,
    floor_run,
    pinned,
)

VN = ROOT / "sample_bots" / "vonneumann" / "build"
VN_BOTS = [str(VN / "naive"), str(VN / "likeme")]
VN_SESSIONS = int(os.environ.get("BENCH_VN_SESSIONS", "1000"))
FLOOR_TARGET = 1.5
MINIMAL_TARGET = 1.0


def _env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    return env


def _json_of(cmd: list[str], what: str) -> dict:
    out = subprocess.run(pinned(cmd), capture_output=True, text=True, env=_env(), cwd=ROOT, check=False)
    if out.returncode != 0:
        sys.exit(f"{what} failed (exit {out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def minimal_run(game: str, bots: list[str], hands: int, seed: int) -> tuple[float, float]:
    """(hands per second, exchanges per hand) of the minimal dealer."""
    r = _json_of([sys.executable, "-m", "benchmarks.minimal_dealers", game, *bots,
                  "--hands", str(hands), "--seed", str(seed)], f"the minimal {game} dealer")
    return r["hands"] / r["duration"], r["exchanges"] / r["hands"]


def arena_vonneumann(seed: int) -> tuple[float, float, int]:
    """(games per second, exchanges per game, games) of one arena match."""
    r = _json_of([sys.executable, "-m", "arena", "vonneumann", *VN_BOTS, "--sessions", str(VN_SESSIONS),
                  "--seed", str(seed), "--sandbox", "none", "--json"], "the arena vonneumann run")
    return r["hands"] / r["duration"], r["exchanges"] / r["hands"], r["hands"]


def measure() -> dict:
    exe = build_floor()
    runs: dict[str, list[float]] = {k: [] for k in (
        "floor", "k_arena", "k_arena_x", "k_min", "k_min_x", "v_arena", "v_arena_x", "v_min", "v_min_x")}
    for i in range(RUNS):
        seed = i + 1
        sample = {"floor": floor_run(exe)}
        sample["k_arena"], sample["k_arena_x"] = arena_run(seed=seed)
        sample["k_min"], sample["k_min_x"] = minimal_run("kuhn3", [str(C_BOT)] * 3, HANDS, seed)
        sample["v_arena"], sample["v_arena_x"], games = arena_vonneumann(seed)
        sample["v_min"], sample["v_min_x"] = minimal_run("vonneumann", VN_BOTS, games, seed)
        for key, value in sample.items():
            runs[key].append(value)
        print(f"  run {i + 1}: floor {sample['floor']:>9,.0f} trips/s | kuhn3 arena {sample['k_arena']:>7,.0f}"
              f" minimal {sample['k_min']:>7,.0f} hands/s | vonneumann arena {sample['v_arena']:>7,.0f}"
              f" minimal {sample['v_min']:>7,.0f} games/s", flush=True)
    m = {key: statistics.median(values) for key, values in runs.items()}

    def ratios(r: dict[str, float]) -> dict[str, float]:
        floor_us = 1e6 / r["floor"]
        return {"kuhn3_over_floor": 1e6 / (r["k_arena"] * r["k_arena_x"]) / floor_us,
                "minimal_over_floor": 1e6 / (r["k_min"] * r["k_min_x"]) / floor_us,
                "kuhn3_over_minimal": r["k_arena"] / r["k_min"], "vonneumann_over_minimal": r["v_arena"] / r["v_min"]}

    by_run, per_run, of_medians = paired(runs, ratios)
    floor_us = 1e6 / m["floor"]
    return {
        "settings": {"runs": RUNS, "core": CORE, "kuhn3_hands": HANDS, "vonneumann_sessions": VN_SESSIONS},
        "floor_round_trips_per_s": m["floor"],
        "floor_us_per_exchange": floor_us,
        "kuhn3": {"arena_us_per_exchange": 1e6 / (m["k_arena"] * m["k_arena_x"]),
                  "arena_over_floor": by_run["kuhn3_over_floor"],
                  "minimal_us_per_exchange": 1e6 / (m["k_min"] * m["k_min_x"]),
                  "minimal_over_floor": by_run["minimal_over_floor"],
                  "arena_hands_per_s": m["k_arena"], "minimal_hands_per_s": m["k_min"],
                  "arena_exchanges_per_hand": m["k_arena_x"], "minimal_exchanges_per_hand": m["k_min_x"],
                  "arena_over_minimal": by_run["kuhn3_over_minimal"]},
        "vonneumann": {"arena_hands_per_s": m["v_arena"], "minimal_hands_per_s": m["v_min"],
                       "arena_exchanges_per_hand": m["v_arena_x"], "minimal_exchanges_per_hand": m["v_min_x"],
                       "arena_over_minimal": by_run["vonneumann_over_minimal"]},
        "per_run": per_run,
        "of_medians": of_medians,
    }


def _get(figures: dict, path: str) -> float | None:
    node = figures
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


ROWS = [  # (label, path in the figures, format)
    ("floor  C <-> C echo, round trips/s", "floor_round_trips_per_s", "{:,.0f}"),
    ("floor  us per exchange", "floor_us_per_exchange", "{:.2f}"),
    ("kuhn3  arena us per exchange", "kuhn3.arena_us_per_exchange", "{:.2f}"),
    ("kuhn3  minimal dealer us per exchange", "kuhn3.minimal_us_per_exchange", "{:.2f}"),
    ("kuhn3  arena hands/s", "kuhn3.arena_hands_per_s", "{:,.0f}"),
    ("kuhn3  minimal dealer hands/s", "kuhn3.minimal_hands_per_s", "{:,.0f}"),
    ("kuhn3  arena exchanges/hand", "kuhn3.arena_exchanges_per_hand", "{:.3f}"),
    ("kuhn3  minimal exchanges/hand", "kuhn3.minimal_exchanges_per_hand", "{:.3f}"),
    ("vonneumann  arena games/s", "vonneumann.arena_hands_per_s", "{:,.0f}"),
    ("vonneumann  minimal dealer games/s", "vonneumann.minimal_hands_per_s", "{:,.0f}"),
    ("vonneumann  arena exchanges/game", "vonneumann.arena_exchanges_per_hand", "{:.3f}"),
    ("vonneumann  minimal exchanges/game", "vonneumann.minimal_exchanges_per_hand", "{:.3f}"),
]

VERDICTS = [  # (label, path, target, True when the target is a ceiling, the key of its runs' ratios)
    ("(a) kuhn3 arena / floor, cost per exchange", "kuhn3.arena_over_floor", FLOOR_TARGET, True, "kuhn3_over_floor"),
    ("(b) kuhn3 arena / minimal dealer, hands/s", "kuhn3.arena_over_minimal", MINIMAL_TARGET, False,
     "kuhn3_over_minimal"),
    ("(c) vonneumann arena / minimal dealer, games/s", "vonneumann.arena_over_minimal", MINIMAL_TARGET, False,
     "vonneumann_over_minimal"),
]


def report(now: dict, before: dict | None) -> None:
    def cell(figures: dict | None, path: str, fmt: str) -> str:
        value = None if figures is None else _get(figures, path)
        return "-" if value is None else fmt.format(value)

    width = max(len(label) for label, _, _ in ROWS)
    print(f"{'':<{width}}  {'before' if before else '':>10}  {'now':>10}")
    for label, path, fmt in ROWS:
        print(f"{label:<{width}}  {cell(before, path, fmt) if before else '':>10}  {cell(now, path, fmt):>10}")
    vwidth = max(len(v[0]) for v in VERDICTS)
    for label, path, target, ceiling, key in VERDICTS:
        value = _get(now, path)
        met = value <= target if ceiling else value >= target
        was = f"before {cell(before, path, '{:.2f}x')}, " if before else ""
        runs = ", ".join(f"{r[key]:.2f}" for r in now["per_run"])
        print(f"ratio  {label:<{vwidth}} : {value:.2f}x ({was}target {'<=' if ceiling else '>='} {target}x: "
              f"{'met' if met else 'NOT met'}; runs {runs}; ratio of the medians {now['of_medians'][key]:.2f}x)")
    # Not a target: what the rule bots' own work and a dealer that checks nothing leave of (a).
    reach = _get(now, "kuhn3.minimal_over_floor")
    if reach is not None:
        print(f"ratio  {'(a) reference: minimal dealer / floor':<{vwidth}} : {reach:.2f}x (the same bots with "
              "no checks at all: (a) cannot go much below this)")
    for game in ("kuhn3", "vonneumann"):
        a, b = _get(now, f"{game}.arena_exchanges_per_hand"), _get(now, f"{game}.minimal_exchanges_per_hand")
        if abs(a - b) > 0.02 * a:
            print(f"WARNING {game}: exchanges per hand differ (arena {a:.3f}, minimal {b:.3f}); the ratio is unfair")


def main() -> None:
    ap = argparse.ArgumentParser(description="arena vs C floor and vs minimal dealers, pinned to one core")
    ap.add_argument("--save", type=Path, help="write this run's figures (medians) as JSON")
    ap.add_argument("--before", type=Path, help="figures of an earlier run (--save) to print beside these")
    args = ap.parse_args()
    if not C_BOT.exists() or not all(Path(b).exists() for b in VN_BOTS):
        sys.exit("C sample bots are missing: run `make bots` first")
    before = json.loads(args.before.read_text()) if args.before else None
    print(f"exchange ratios, pinned to core {CORE}; {RUNS} interleaved runs (kuhn3: {HANDS} hands, 3 C rule bots;"
          f" vonneumann: naive vs likeme (C), {VN_SESSIONS} sessions; floor: {FLOOR_SECONDS:g} s)")
    now = measure()
    report(now, before)
    if args.save:
        args.save.write_text(json.dumps(now, indent=1) + "\n")
        print(f"figures saved to {args.save}")


if __name__ == "__main__":
    main()
