#!/usr/bin/env python3
"""A vonneumann bot that tries to predict the cards (tests/sandbox/test_secret_deal.py).

``watch`` (the attacker): passes as A and calls as B, so that every game ends
in a showdown and it learns both cards of every game (its own at once, the
opponent's from the next request). With enough of them it solves the
generator's state (mt19937.py) and from then on predicts each card before it
is dealt, checking every prediction against the card it then sees. At the end
it writes ``PREDICTED n HIT k`` on stderr.

``feed`` (the opponent): bets 1 as A, calls as B, so the attacker sees all.
"""

import json
import sys

import mt19937

SCALE = 1 << 24
mode = sys.argv[1] if len(sys.argv) > 1 else "watch"
outputs: dict[int, int] = {}  # output index -> 24-bit card (2 per game: A's, then B's)
words = None  # the solved state
predicted: dict[int, int] = {}
hits = tried = 0


def learn(index: int, card: float) -> None:
    global words, hits, tried
    value = round(card * SCALE)
    if index in predicted:
        tried += 1
        hits += predicted[index] == value
    outputs.setdefault(index, value)
    if words is None and len(outputs) >= mt19937.ENOUGH and all(i in outputs for i in range(mt19937.ENOUGH)):
        words = mt19937.solve([outputs[i] for i in range(mt19937.ENOUGH)])
        for i, v in enumerate(mt19937.predict(words, 4000), start=mt19937.ENOUGH):
            predicted[i] = v


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "match_start":
        reply = {"type": "ready"}
    elif kind in ("a_turn", "b_turn"):
        game = msg["match_game"]
        role = 0 if kind == "a_turn" else 1
        if mode == "watch":
            if msg["opponent_previous_card"] >= 0 and game > 0:
                # last game the opponent held the other role
                learn(2 * (game - 1) + role, msg["opponent_previous_card"])
            learn(2 * game + role, msg["card"])
            reply = {"type": "bet", "amount": 0} if kind == "a_turn" else {"type": "call", "call": True}
        else:
            reply = {"type": "bet", "amount": 1} if kind == "a_turn" else {"type": "call", "call": True}
    elif kind == "match_end":
        if mode == "watch":
            print(f"SEEN {len(outputs)} PREDICTED {tried} HIT {hits}", file=sys.stderr, flush=True)
        continue
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
