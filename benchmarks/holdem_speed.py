"""`make bench`: hold'em at the ACPC dealer's speed (issue 30), every ratio of one run.

Everything pinned to one core (dealer, arena and bots alike), RUNS
interleaved runs; each ratio is the median of the runs' own ratios (the
ratio of the two sides' medians printed beside it). Side by side:

  acpc     the ACPC dealer (C, TCP) with two example_players: heads-up
           no-limit, stacks 20000, blinds 50/100 (the ACPC package's
           holdem.nolimit.2p.reverse_blinds.game; built from ../shared/acpc
           by benchmarks.acpc_speed, never copied in);
  json     the arena on the same game (cash, --stack 20000, 50/100; heads-up
           the button posts the small blind, as in the reverse-blinds game)
           with its C sample bots, rule_bot against call_bot, JSON lines;
  agents   the arena on the same game with the same two example_players as
           `acpc:` bots (the arena speaking to each agent's connection
           through its ACPC codec, docs/acpc.md);
  holdem6  the arena, six C sample bots (three rule, three call), cash;
  kuhn3    the arena, three C rule bots (the compiled dialogue), and the
           minimal blocking Python kuhn3 dealer on the same bots;
  vn       the arena's vonneumann (C bots naive and likeme) and its minimal
           JSON-lines dealer (benchmarks.minimal_dealers); besides games/s,
           the CPU per game of each whole process tree (dealer and bots,
           start-up taken off by a one-session run of each), which the
           machine's load moves far less than the wall time.

Hands per second are timed as each side reports them: the ACPC dealer from
its start to its end (players' start-up included, which favours the arena),
the arena by its --json `duration` (from the first message to the last
reply). A "message" is every line the arena writes to a bot, requests and
notices (the --json `exchanges`).

The hands are not the same hands: the ACPC example_player raises at random,
rule_bot and call_bot play their own way, so a ratio of hands/s also
carries how many actions a hand has; the actions per hand are printed.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys

from benchmarks._paired import paired
from benchmarks.acpc_speed import build as build_acpc
from benchmarks.acpc_speed import dealer_run
from benchmarks.exchange_ratios import VN_BOTS, arena_vonneumann, minimal_run
from benchmarks.kuhn3_throughput import C_BOT, CORE, HANDS, ROOT, arena_run, pinned

HOLDEM = ROOT / "sample_bots" / "holdem" / "build"
# Five interleaved runs (BENCH_HOLDEM_RUNS): the VM's speed moves by a third from one
# run to the next, and the median of three was once decided by a single slow run.
RUNS = int(os.environ.get("BENCH_HOLDEM_RUNS", "5"))
# Each side's run lasts a second or more (the dealer's 20,000 hands about three): on
# these shared VMs a short run is the one a hiccup of the machine halves.
JSON_HANDS = int(os.environ.get("BENCH_HOLDEM_HANDS", "16000"))
AGENT_HANDS = int(os.environ.get("BENCH_ACPC_ARENA_HANDS", "10000"))
SIX_HANDS = int(os.environ.get("BENCH_HOLDEM6_HANDS", "1000"))
GAME = ["--stack", "20000", "--small-blind", "50", "--big-blind", "100"]

TARGETS = [  # (label, key, target, True when the target is a ceiling)
    ("arena hold'em JSON, C bots / ACPC dealer, hands/s", "json_over_acpc", 1.0, False),
    ("arena hold'em ACPC agents / ACPC dealer, hands/s", "agents_over_acpc", 1.0, False),
    ("6-seat hold'em / kuhn3, cost per message", "six_over_kuhn3", 1.2, True),
    ("vonneumann arena / minimal dealer, games/s", "vn_over_minimal", 1.0, False),
    ("kuhn3 arena / minimal dealer, hands/s", "kuhn3_over_minimal", 1.0, False),
]


def _arena(bots: list[str], hands: int, seed: int) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    out = subprocess.run(
        pinned([sys.executable, "-m", "arena", "holdem", *bots, *GAME, "--hands", str(hands), "--seed", str(seed),
                "--sandbox", "none", "--json"]),
        capture_output=True, text=True, env=env, cwd=ROOT)
    if out.returncode != 0:
        sys.exit(f"the arena run failed (exit {out.returncode}):\n{out.stderr[-2000:]}")
    return json.loads(out.stdout)


def _cpu_of(run, *args):
    """run(*args), and the CPU seconds of the processes it started (children, bots included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = run(*args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _vn_cpu_per_game(seed: int) -> tuple[float, float, float, float, int]:
    """vonneumann, arena and minimal dealer: games/s of each, CPU microseconds per game of
    each (a one-session run's CPU, the start-up, taken off), and the games played."""
    (vn, _, games), cpu = _cpu_of(arena_vonneumann, seed)  # benchmarks.exchange_ratios' run
    (_, _, small), cpu_small = _cpu_of(_arena_vonneumann, seed, 1)
    (vn_min, _), cpu_min = _cpu_of(minimal_run, "vonneumann", VN_BOTS, games, seed)
    (_, _), cpu_min_small = _cpu_of(minimal_run, "vonneumann", VN_BOTS, small, seed)
    per_game = 1e6 * (cpu - cpu_small) / (games - small)
    per_game_min = 1e6 * (cpu_min - cpu_min_small) / (games - small)
    return vn, vn_min, per_game, per_game_min, games


def _arena_vonneumann(seed: int, sessions: int) -> tuple[float, float, int]:
    out = subprocess.run(
        pinned([sys.executable, "-m", "arena", "vonneumann", *VN_BOTS, "--sessions", str(sessions), "--seed",
                str(seed), "--sandbox", "none", "--json"]),
        capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        sys.exit(f"the arena vonneumann run failed (exit {out.returncode}):\n{out.stderr[-2000:]}")
    r = json.loads(out.stdout)
    return r["hands"] / r["duration"], r["exchanges"] / r["hands"], r["hands"]


def measure() -> dict:
    acpc = build_acpc()
    agent = f"acpc:{acpc['example_player']} {{gamedef}}"
    json_bots = [str(HOLDEM / "rule_bot"), str(HOLDEM / "call_bot")]
    six = [json_bots[i % 2] for i in range(6)]
    keys = ("acpc", "json", "json_x", "agents", "agents_x", "six", "six_x", "kuhn3", "kuhn3_x", "kuhn3_min",
            "vn", "vn_min", "vn_cpu", "vn_min_cpu", "vn_ratio")
    runs: dict[str, list[float]] = {k: [] for k in keys}
    for i in range(RUNS):
        seed = i + 1
        s: dict[str, float] = {"acpc": dealer_run(acpc, seed)}
        r = _arena(json_bots, JSON_HANDS, seed)
        s["json"], s["json_x"] = r["hands"] / r["duration"], r["exchanges"] / r["hands"]
        r = _arena([agent, agent], AGENT_HANDS, seed)
        s["agents"], s["agents_x"] = r["hands"] / r["duration"], r["exchanges"] / r["hands"]
        r = _arena(six, SIX_HANDS, seed)
        s["six"], s["six_x"] = r["hands"] / r["duration"], r["exchanges"] / r["hands"]
        s["kuhn3"], s["kuhn3_x"] = arena_run(seed=seed)
        s["kuhn3_min"], _ = minimal_run("kuhn3", [str(C_BOT)] * 3, HANDS, seed)
        s["vn"], s["vn_min"], s["vn_cpu"], s["vn_min_cpu"], _ = _vn_cpu_per_game(seed)
        s["vn_ratio"] = s["vn"] / s["vn_min"]  # the two sides of one run, next to each other in time
        for key, value in s.items():
            runs[key].append(value)
        print(f"  run {i + 1}: ACPC dealer {s['acpc']:>7,.0f} | arena JSON {s['json']:>6,.0f} ACPC agents {s['agents']:>5,.0f}"
              f" 6-seat {s['six']:>5,.0f} hands/s | kuhn3 {s['kuhn3']:>7,.0f} minimal {s['kuhn3_min']:>7,.0f}"
              f" hands/s | vonneumann {s['vn']:>6,.0f} minimal {s['vn_min']:>6,.0f} games/s"
              f" (CPU {s['vn_cpu']:.1f} / {s['vn_min_cpu']:.1f} us a game)", flush=True)
    m = {k: statistics.median(v) for k, v in runs.items()}

    def ratios(r: dict[str, float]) -> dict[str, float]:
        six_us, kuhn3_us = 1e6 / (r["six"] * r["six_x"]), 1e6 / (r["kuhn3"] * r["kuhn3_x"])
        return {"json_over_acpc": r["json"] / r["acpc"], "agents_over_acpc": r["agents"] / r["acpc"],
                "six_over_kuhn3": six_us / kuhn3_us, "vn_over_minimal": r["vn"] / r["vn_min"],
                "kuhn3_over_minimal": r["kuhn3"] / r["kuhn3_min"]}

    by_run, per_run, of_medians = paired(runs, ratios)
    return {
        "settings": {"runs": RUNS, "core": CORE, "json_hands": JSON_HANDS, "agent_hands": AGENT_HANDS,
                     "six_hands": SIX_HANDS, "kuhn3_hands": HANDS},
        "medians": m,
        "six_us_per_message": 1e6 / (m["six"] * m["six_x"]),
        "kuhn3_us_per_message": 1e6 / (m["kuhn3"] * m["kuhn3_x"]),
        "per_run": per_run,
        "of_medians": of_medians,
        **by_run,
        "vn_cpu_over_minimal": m["vn_min_cpu"] / m["vn_cpu"],
    }


def report(f: dict) -> None:
    m = f["medians"]
    print(f"ACPC dealer, 2 example_players       : {m['acpc']:>8,.0f} hands/s")
    print(f"arena, JSON, rule_bot vs call_bot (C) : {m['json']:>8,.0f} hands/s ({m['json_x']:.1f} messages/hand)")
    print(f"arena, the 2 example_players (ACPC)   : {m['agents']:>8,.0f} hands/s ({m['agents_x']:.1f} messages/hand)")
    print(f"arena, 6-seat hold'em, 6 C bots       : {m['six']:>8,.0f} hands/s = {f['six_us_per_message']:6.2f} us "
          f"per message ({m['six_x']:.1f} messages/hand)")
    print(f"arena, kuhn3, 3 C rule bots           : {m['kuhn3']:>8,.0f} hands/s = {f['kuhn3_us_per_message']:6.2f} us "
          f"per message; minimal dealer {m['kuhn3_min']:,.0f} hands/s")
    print(f"vonneumann, arena / minimal dealer    : {m['vn']:>8,.0f} / {m['vn_min']:,.0f} games/s; CPU per game "
          f"(whole tree, start-up off) {m['vn_cpu']:.1f} / {m['vn_min_cpu']:.1f} us = "
          f"{f['vn_cpu_over_minimal']:.2f}x the dealer's speed; median of the runs' own ratios "
          f"{m['vn_ratio']:.2f}x")
    width = max(len(t[0]) for t in TARGETS)
    for label, key, target, ceiling in TARGETS:
        value = f[key]
        met = value <= target if ceiling else value >= target
        runs = ", ".join(f"{r[key]:.2f}" for r in f["per_run"])
        print(f"ratio  {label:<{width}} : {value:5.2f}x (target {'<=' if ceiling else '>='} {target}x: "
              f"{'met' if met else 'NOT met'}; runs {runs}; ratio of the medians {f['of_medians'][key]:.2f}x)")


def main() -> None:
    for exe in (C_BOT, HOLDEM / "rule_bot", HOLDEM / "call_bot"):
        if not exe.exists():
            sys.exit(f"{exe} is missing: run `make bots` first")
    print(f"hold'em at the ACPC dealer's speed, pinned to core {CORE}; {RUNS} interleaved runs "
          f"(arena JSON {JSON_HANDS}, ACPC agents {AGENT_HANDS}, 6-seat {SIX_HANDS}, kuhn3 {HANDS} hands per run)")
    figures = measure()
    report(figures)
    if len(sys.argv) > 2 and sys.argv[1] == "--save":
        with open(sys.argv[2], "w") as out:
            json.dump(figures, out, indent=1)


if __name__ == "__main__":
    main()
