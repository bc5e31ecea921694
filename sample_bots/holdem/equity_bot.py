#!/usr/bin/env python3
"""A Hold'em rule bot that plays by its Monte-Carlo equity.

At each decision it deals the unseen cards at random SAMPLES times (400) to
as many opponents as are still in the hand, scores every seven-card hand
with eval7, and takes its share of the wins (ties split) as its equity.
Then, with N opponents left (a fair share of 1/(N+1)):

* equity >= min(0.62, 1.4/(N+1)): bet or raise to about three quarters of
  the pot after calling (at least two big blinds more), at most twice a
  street (then it only calls);
  with equity >= min(0.8, 2.2/(N+1)) a pot-sized raise, with no limit;
* otherwise check when it is free, call when the equity beats the pot odds
  (what the call costs over the pot after calling) by 3 points, else fold.

The opponents' hands are drawn uniformly from the unseen cards: the bot
does not model how anyone plays. Each decision draws from a generator
seeded by (--seed, hand number, street, its turn on the street), so a seed
gives the same play in the same spot. A decision takes a few milliseconds.

Speaks the arena's JSON lines directly (docs/protocols/holdem.md). Needs
eval7, which is installed in the project's venv, so run it with that Python:
    .venv/bin/python sample_bots/holdem/equity_bot.py [--seed N]   (default seed 0)
"""
import json
import random
import sys

try:
    import eval7
except ImportError:
    sys.stderr.write("equity_bot.py needs eval7: run it with the project's venv, "
                     ".venv/bin/python sample_bots/holdem/equity_bot.py\n")
    sys.exit(1)

SAMPLES = 400
MAX_RAISES_PER_STREET = 2  # raises below the "very strong" bar
CALL_MARGIN = 0.03
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
CARD = {name: eval7.Card(name) for name in DECK}

seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 0


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def equity(hole: list, board: list, opponents: int, rng: random.Random, samples: int = SAMPLES) -> float:
    """This hand's share of the pot against ``opponents`` random hands."""
    seen = set(hole) | set(board)
    unseen = [CARD[c] for c in DECK if c not in seen]
    mine = [CARD[c] for c in hole]
    known = [CARD[c] for c in board]
    missing = 5 - len(board)
    draw = missing + 2 * opponents
    evaluate = eval7.evaluate
    won = 0.0
    for _ in range(samples):
        cards = rng.sample(unseen, draw)
        full = known + cards[:missing]
        me = evaluate(mine + full)
        ties = 0
        for i in range(missing, draw, 2):
            them = evaluate(cards[i:i + 2] + full)
            if them > me:
                break
            ties += them == me
        else:
            won += 1.0 / (ties + 1)
    return won / samples


class Bot:
    def __init__(self) -> None:
        self.hand = None
        self.raises = {}  # street -> raises made below the "very strong" bar, this hand
        self.turns = {}  # street -> decisions taken, this hand

    def decide(self, msg: dict) -> dict:
        hand, street, seat = msg["hand"], msg["street"], msg["seat"]
        if hand != self.hand:
            self.hand, self.raises, self.turns = hand, {}, {}
        key = street
        self.turns[key] = self.turns.get(key, 0) + 1
        legal, to_call, pot = msg["legal"], msg["to_call"], msg["pot"]
        opponents = max(1, len(msg["in_hand"]) - 1)
        stack, bet = msg["stacks"][seat], msg["bets"][seat]
        rng = random.Random(f"{seed}:{hand}:{street}:{self.turns[key]}")
        eq = equity(msg["cards"], msg["board"], opponents, rng)
        fair = 1.0 / (opponents + 1)
        cost = min(to_call, stack)

        if "raise" in legal:
            very_strong = eq >= min(0.8, 2.2 * fair)
            strong = eq >= min(0.62, 1.4 * fair) and self.raises.get(key, 0) < MAX_RAISES_PER_STREET
            if very_strong or strong:
                self.raises[key] = self.raises.get(key, 0) + (0 if very_strong else 1)
                after_call = pot + cost
                extra = after_call if very_strong else (3 * after_call + 3) // 4
                target = bet + cost + max(extra, 2 * msg["big_blind"], 1)
                low, high = msg["min_raise_to"], msg["max_raise_to"]
                return {"type": "action", "action": "raise", "to": max(low, min(high, target))}
        if to_call == 0 or eq >= cost / (pot + cost) + CALL_MARGIN or "fold" not in legal:
            return {"type": "action", "action": "call"}
        return {"type": "action", "action": "fold"}


def main() -> None:
    bot = Bot()
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "match_start":
            bot = Bot()
            send({"type": "ready"})
        elif kind == "act":
            send(bot.decide(msg))
        # everything else is a notice: nothing to answer


if __name__ == "__main__":
    main()
