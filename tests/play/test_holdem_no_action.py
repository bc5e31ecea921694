"""A hand where nobody can act (both seats all-in from the blinds) follows
the protocol: ``hand_start`` has the stacks and bets as posted, then every
street is announced, then ``hand_end`` (read back from ``--trace``)."""

from __future__ import annotations

import json

from ..conftest import ROOT, replay_key, run_arena

BOT = f"python3 {ROOT / 'sample_bots' / 'holdem' / 'random_bot.py'}"


def test_a_hand_nobody_can_act_in_is_announced_as_posted():
    proc = run_arena("holdem", f"{BOT} --seed 1", f"{BOT} --seed 2", "--stack", "2", "--small-blind", "2",
                     "--big-blind", "2", "--hands", "1", "--seed", replay_key("1"), "--trace", "--json", timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["faults"] == []
    seat0 = []
    for line in proc.stderr.splitlines():
        head, arrow, text = line.partition(" -> ")
        if arrow and text.startswith("{") and head.endswith("] seat 0"):
            seat0.append(json.loads(text))
    kinds = [m["type"] for m in seat0]
    assert kinds == ["match_start", "hand_start", "street", "street", "street", "hand_end", "match_end"], kinds
    start = seat0[1]
    assert start["stacks"] == [0, 0] and start["bets"] == [2, 2], start
    assert [m["street"] for m in seat0[2:5]] == ["flop", "turn", "river"]
    assert [len(m["board"]) for m in seat0[2:5]] == [3, 4, 5]
    assert seat0[5]["board"] == seat0[4]["board"]
    assert sum(seat0[5]["stacks"]) == 4
