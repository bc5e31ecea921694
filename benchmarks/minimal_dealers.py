"""The least a Python dealer can do: the yardstick `benchmarks.exchange_ratios`
holds the arena against (issue 14, item 5).

Two dealers, each one plain function over blocking pipes:

  kuhn3       the seed's text protocol, exactly as the arena speaks it
              (docs/protocols/kuhn3.md): init_round, then per hand init_hand,
              play until betting ends, end_hand, the EndAction block; end_round;
  vonneumann  JSON lines (docs/protocols/vonneumann.md): match_start, then per
              game a_turn and, after a bet, b_turn; match_end.

What they leave out is everything the arena adds around the dialogue: no
validation of replies (the first token is trusted), no deadlines, no sandbox,
no event loop, no fault reports, no logs. Writes go straight to the pipe
(os.write, unbuffered) and reads are blocking os.read until a newline.

Why the comparison is fair: the choreography is the arena's, message for
message. A step writes to every seat involved, then reads one reply from
each, in the arena's order; the same three C bots answer the same kinds of
messages; the rules are the real ones (betting order, who is asked twice,
session ends), so each hand costs the same number of exchanges per bot. The
exchange count is reported the arena's way (every message written,
notifications included) so both sides' exchanges per hand can be compared.
The clock runs from the first message to the last reply, bots already
started, as the arena's `duration` does. The cards come from
random.Random(seed), drawn in the order the arena draws them (button, then
one sample per hand; two 24-bit cards per vonneumann game), so with the
arena's seed the same hands are dealt.

Usage (prints one JSON object: hands, exchanges, duration):
    python -m benchmarks.minimal_dealers kuhn3 --hands N --seed S BOT BOT BOT
    python -m benchmarks.minimal_dealers vonneumann --games N --seed S BOT BOT
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import subprocess
import sys
import time


class Bots:
    """The bots' pipes, read and written with plain blocking system calls."""

    def __init__(self, commands: list[str]) -> None:
        self.procs = [
            subprocess.Popen(shlex.split(c), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, bufsize=0)
            for c in commands
        ]
        self.fd_in = [p.stdin.fileno() for p in self.procs]
        self.fd_out = [p.stdout.fileno() for p in self.procs]
        self.pending = [b""] * len(commands)  # bytes read past a reply's newline
        self.exchanges = 0

    def send(self, seat: int, data: bytes) -> None:
        # Messages are far below PIPE_BUF and the bot is waiting: one write suffices.
        os.write(self.fd_in[seat], data)
        self.exchanges += 1

    def reply(self, seat: int) -> bytes:
        buf = self.pending[seat]
        while b"\n" not in buf:
            chunk = os.read(self.fd_out[seat], 4096)
            if not chunk:
                sys.exit(f"bot {seat} closed its stdout")
            buf += chunk
        line, _, self.pending[seat] = buf.partition(b"\n")
        return line

    def close(self) -> None:
        for p in self.procs:
            p.stdin.close()
        for p in self.procs:
            try:
                p.wait(timeout=2)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


# -- kuhn3 ---------------------------------------------------------------------

RANKS = "JQKA"


def _local(values: list, seat: int) -> str:
    """A list in the receiver's view: its own entry first, then clockwise."""
    return f"{values[seat]},{values[(seat + 1) % 3]},{values[(seat + 2) % 3]}"


def kuhn3(bots: Bots, hands: int, seed: int, check: bool = False) -> float:
    """Play `hands` hands; return the seconds from init_round to the last reply.
    With `check`, compare each bot's Money: reply with this dealer's totals
    (off when timing: the arena's validation is what is being measured)."""
    rng = random.Random(seed)
    money = [0, 0, 0]
    button = rng.randrange(3)
    started = time.perf_counter()
    for s in range(3):
        bots.send(s, f"init_round\nMoney: 0,0,0\nBlinds: 1,1,1\nButton: {(button - s) % 3}\n"
                     f"EndProb: 1,{hands}\n".encode())
    for s in range(3):
        bots.reply(s)
    for hand in range(hands):
        if hand:
            button = (button + 1) % 3
        cards = rng.sample(RANKS, 3)
        for s in range(3):
            bots.send(s, f"init_hand\nHand: {hand}\nCards: {cards[s]}\n".encode())
        for s in range(3):
            bots.reply(s)

        # Betting: clockwise from the seat after the button. Without a bet it
        # ends when the button has checked; after the (only possible) bet,
        # the two other seats answer it once each, so it ends with the seat
        # just before the bettor.
        in_front = [1, 1, 1]
        latest = ["BLIND 1", "BLIND 1", "BLIND 1"]
        folded = [False, False, False]
        seat, last = (button + 1) % 3, button
        while True:
            bots.send(seat, ("play\n" + "".join(f"Action: {latest[(seat + i) % 3]}\n" for i in range(3))).encode())
            action = bots.reply(seat).decode().rstrip()
            verb, amount = action.split(" ")
            amount = int(amount)
            latest[seat] = action
            if verb == "FOLD":
                folded[seat] = True
            elif amount > max(in_front):
                last = (seat + 2) % 3  # a bet: the seat before the bettor closes the betting
            in_front[seat] = amount
            if seat == last:
                break
            seat = (seat + 1) % 3
        last_actor = seat

        # Showdown with automatic mucking: in betting order, a card is shown
        # only if it beats every card shown before it; the last one shown wins.
        live = [(button + k) % 3 for k in (1, 2, 3) if not folded[(button + k) % 3]]
        shown = ["-", "-", "-"]
        winner = live[0]
        if len(live) > 1:
            best = -1
            for s in live:
                if RANKS.index(cards[s]) > best:
                    best, winner, shown[s] = RANKS.index(cards[s]), s, cards[s]
        pot = sum(in_front)
        for s in range(3):
            money[s] -= in_front[s]
        money[winner] += pot

        order = [(last_actor + k) % 3 for k in (1, 2, 3)]
        for r in order:
            # Seats from the one after the last actor up to the receiver are PASS.
            actions = list(latest)
            s = (last_actor + 1) % 3
            while s != r:
                actions[s] = f"PASS {in_front[s]}"
                s = (s + 1) % 3
            lines = "".join(f"Action: {actions[(r + i) % 3]}\n" for i in range(3))
            bots.send(r, f"end_hand\n{lines}Showdown: {_local(shown, r)}\nPots: {pot},{(winner - r) % 3}\n".encode())
        answers = [b"", b"", b""]
        for r in order:
            answers[r] = bots.reply(r)
        for r in order:
            bots.send(r, b"".join(b"EndAction: " + answers[(r + i) % 3] + b"\n" for i in range(3)))
        for r in order:
            line = bots.reply(r)
            if check and line.decode().replace(" ", "") != f"Money:{_local(money, r)}":
                sys.exit(f"hand {hand}: seat {r} believes {line!r}, the dealer has {_local(money, r)}")
    for s in range(3):
        bots.send(s, f"end_round\nBankrolls: {_local(money, s)}\nNumHands: {hands}\n".encode())
    for s in range(3):
        bots.reply(s)
    return time.perf_counter() - started


# -- vonneumann ----------------------------------------------------------------

PARAMS = {"ante": 10, "max_bet": 50, "stack": 100, "games_per_session": 50, "sessions": 1000}


def vonneumann(bots: Bots, games: int, seed: int) -> float:
    """Play `games` games at the default parameters (sessions as the rules
    say, as many as it takes); return the seconds from match_start to match_end."""
    rng = random.Random(seed)
    ante, cap, stack, per_session = PARAMS["ante"], PARAMS["max_bet"], PARAMS["stack"], PARAMS["games_per_session"]
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    money = [stack, stack]
    previous = [-1.0, -1.0]  # what each seat saw of the other's card last game
    session = game = 0
    started = time.perf_counter()
    for s in range(2):
        bots.send(s, dumps({"type": "match_start", "game": "vonneumann", "game_version": 1, "match": 0,
                            "seat": s, "role": None, "players": ["seat0", "seat1"],
                            "params": PARAMS}).encode() + b"\n")
    for s in range(2):
        bots.reply(s)
    for match_game in range(games):
        a = match_game % 2
        b = 1 - a
        card = [0.0, 0.0]
        card[a] = rng.getrandbits(24) / 16777216.0
        card[b] = rng.getrandbits(24) / 16777216.0
        limit = min(cap, money[a], money[b])
        bots.send(a, dumps({"type": "a_turn", "match": 0, "session": session, "game": game,
                            "match_game": match_game, "card": card[a], "opponent_previous_card": previous[a],
                            "money": money[a], "opponent_money": money[b], "max_bet": limit}).encode() + b"\n")
        bet = max(0, min(int(json.loads(bots.reply(a))["amount"]), limit))
        showdown = True
        if bet:
            bots.send(b, dumps({"type": "b_turn", "match": 0, "session": session, "game": game,
                                "match_game": match_game, "card": card[b], "opponent_previous_card": previous[b],
                                "money": money[b], "opponent_money": money[a], "bet": bet}).encode() + b"\n")
            showdown = json.loads(bots.reply(b))["call"]
        if showdown:  # ties go to B
            winner, amount = (a if card[a] > card[b] else b), ante + bet
            previous = [card[1], card[0]]
        else:  # B folded: A takes the ante, no card is shown
            winner, amount = a, ante
            previous = [-1.0, -1.0]
        money[winner] += amount
        money[1 - winner] -= amount
        game += 1
        if game >= per_session or min(money) < ante:
            session, game, money = session + 1, 0, [stack, stack]
    for s in range(2):
        bots.send(s, dumps({"type": "match_end", "match": 0, "scores": [0.0, 0.0],
                            "completed": True}).encode() + b"\n")
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", choices=("kuhn3", "vonneumann"))
    ap.add_argument("bots", nargs="+")
    ap.add_argument("--hands", "--games", type=int, default=1000, dest="hands")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", action="store_true", help="kuhn3: check every Money: reply")
    args = ap.parse_args()
    bots = Bots(args.bots)
    try:
        if args.game == "kuhn3":
            duration = kuhn3(bots, args.hands, args.seed, args.check)
        else:
            duration = vonneumann(bots, args.hands, args.seed)
    finally:
        bots.close()
    print(json.dumps({"game": args.game, "hands": args.hands, "exchanges": bots.exchanges,
                      "duration": round(duration, 6)}))


if __name__ == "__main__":
    main()
