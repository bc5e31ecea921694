"""`make bench`: Hold'em through the arena, next to kuhn3, in one run.

Interleaved, each run pinned to one core (as in kuhn3_throughput):

  kuhn3   `arena kuhn3` with three C sample bots;
  holdem  `arena holdem` with six C sample bots (three rule bots, three
          call bots), cash, full validation of every reply.

Prints hands per second and the cost per exchange (every line written to a
bot counts: requests and notices) of each, and the ratio of the costs. A
Hold'em hand is some 150 exchanges at six seats, since every action is told
to every seat.
"""

from __future__ import annotations

import statistics

from benchmarks.kuhn3_throughput import C_BOT, RUNS, ROOT, arena_run

HOLDEM = ROOT / "sample_bots" / "holdem" / "build"
HOLDEM_HANDS = 1000


def main() -> None:
    bots = [HOLDEM / "rule_bot", HOLDEM / "call_bot"]
    for exe in (C_BOT, *bots):
        if not exe.exists():
            raise SystemExit(f"{exe} is missing: run `make bots` first")
    six = [str(bots[i % 2]) for i in range(6)]
    kuhn, holdem = [], []
    print(f"holdem through the arena next to kuhn3; {RUNS} interleaved runs "
          f"({HOLDEM_HANDS} holdem hands, 6 C bots, per run)")
    for i in range(RUNS):
        k = arena_run(seed=i + 1)
        h = arena_run(seed=i + 1, game="holdem", bots=six, hands=HOLDEM_HANDS)
        kuhn.append(k)
        holdem.append(h)
        print(f"  run {i + 1}: kuhn3 {k[0]:>8,.0f} hands/s ({k[1]:.1f} exchanges/hand)   "
              f"holdem {h[0]:>6,.0f} hands/s ({h[1]:.1f} exchanges/hand)")
    rows = []
    for name, runs in (("kuhn3  (3 C bots)", kuhn), ("holdem (6 C bots)", holdem)):
        hands = statistics.median(r[0] for r in runs)
        exchanges = statistics.median(r[1] for r in runs)
        rows.append((name, hands, 1e6 / (hands * exchanges)))
    for name, hands, us in rows:
        print(f"{name}: {hands:>8,.0f} hands/s = {us:6.2f} us per exchange")
    print(f"ratio  holdem / kuhn3 per exchange: {rows[1][2] / rows[0][2]:.2f}x")


if __name__ == "__main__":
    main()
