#!/usr/bin/env python3
"""Reference bot for von Neumann poker: an equilibrium of one game, both roles.

Speaks the arena's vonneumann JSON lines on stdin/stdout. It plays the
equilibrium of a single game with pot 2*ante and bets of $1..$cap, where cap
is the bet limit in force (max_bet, cut to both players' money). For ante 10
and cap 50 this is the table in the project's reference notes (A passes with
cards in [0.1399, 0.5904), B calls a bet s above 1 - 17.2014/(20+s)); when a
stack is short the cap is lower and the bot solves the same equations for
that cap instead of clamping the $50 strategy (the "fallback").

The equilibrium has this shape, for a constant D found by bisection:
  B calls a bet s when its card y > t_s = 1 - D/(2*ante + s);
  A value-bets s with x in [v_(s-1), v_s): v_0 = (1 + t_1)/2,
    v_s = (1 + (s+1) t_(s+1) - s t_s)/2, v_cap = 1 (A indifferent between sizes);
  A bluffs s with a mass b_s = (v_s - v_(s-1)) s/(2*ante + s) (B indifferent),
    the lowest cards bluffing the largest bets, and the bluffs fill [0, p)
    with p = 1 - D/(2*ante) (where passing and bluffing are worth the same).
It ignores the session scoring and the opponent's past play.

Run: python3 reference_bot.py
"""
import json
import sys
from functools import lru_cache


@lru_cache(maxsize=None)
def equilibrium(ante, cap):
    """(t, v, bluff_edges): t[s] B's call threshold, v[s] value edges, bluff_edges[s]
    the lower end of size s's bluff interval (its upper end is bluff_edges[s-1] or p)."""
    pot = 2 * ante

    def shape(d):
        t = [0.0] + [1 - d / (pot + s) for s in range(1, cap + 1)]
        v = [(1 + t[1]) / 2]
        v += [(1 + (s + 1) * t[s + 1] - s * t[s]) / 2 for s in range(1, cap)]
        v.append(1.0)
        bluffs = [(v[s] - v[s - 1]) * s / (pot + s) for s in range(1, cap + 1)]
        return t, v, bluffs, 1 - d / pot

    lo, hi = 0.0, float(pot)
    for _ in range(100):  # more bluff mass than room below p means D is too small
        d = (lo + hi) / 2
        _, _, bluffs, p = shape(d)
        if sum(bluffs) < p:
            lo = d
        else:
            hi = d
    t, v, bluffs, p = shape((lo + hi) / 2)
    edges = [p]
    for s in range(1, cap + 1):
        edges.append(edges[-1] - bluffs[s - 1])
    edges[-1] = 0.0
    return t, v, edges


def a_bet(ante, cap, x):
    if cap < 1:
        return 0
    t, v, edges = equilibrium(ante, cap)
    if x >= v[0]:
        for s in range(1, cap + 1):
            if x < v[s]:
                return s
        return cap
    if x < edges[0]:
        for s in range(1, cap + 1):
            if x >= edges[s]:
                return s
        return cap
    return 0


def b_calls(ante, cap, y, bet):
    t, _, _ = equilibrium(ante, max(cap, bet))
    return y > t[bet]


def main():
    ante, max_bet = 10, 50
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "match_start":
            ante = msg["params"].get("ante", ante)
            max_bet = msg["params"].get("max_bet", max_bet)
            reply = {"type": "ready"}
        elif kind == "a_turn":
            reply = {"type": "bet", "amount": a_bet(ante, msg["max_bet"], msg["card"])}
        elif kind == "b_turn":
            cap = min(max_bet, msg["money"], msg["opponent_money"])
            reply = {"type": "call", "call": b_calls(ante, cap, msg["card"], msg["bet"])}
        else:
            continue  # match_end and anything new: no reply
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
