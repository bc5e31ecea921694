#!/usr/bin/env python3
"""Run a TopCoder-style TwoCardDraw class as an arena bot.

    python3 shims/python/twocarddraw_runner.py entry.py [args for the entry...]

The entry file defines a class (``TwoCardDraw``, or the only class with the
six methods) with the seed's methods::

    init(bet1, bet2)                           -> ignored
    new_hand(card1, card2, winnings)           -> 0 check, 1 bet
    round1(card1, card2, bets)                 -> 0 fold, 1 call, 2 raise
    draw(card1, card2, bets)                   -> cards to draw: 0, 1 or 2
    round2(card1, card2, bets1, bets2, drew)   -> 0 fold, 1 call/check, 2 raise/bet
    showdown(card1, card2, opp1, opp2)         -> ignored

One instance serves the whole process (every match of a series), as on the
TopCoder server. The entry sees ``sys.argv == [entry.py, args...]``.

As the second player (bot-against-bot matches only) the same methods are
used: ``new_hand`` is still called at the start of every hand (its answer is
then ignored), and ``round1`` is asked with 0..3 bets, 0 bets meaning the
first player checked (0 or 1 check, 2 bet).

The runner uses only the standard library.
"""

import importlib.util
import json
import sys

METHODS = ("init", "new_hand", "round1", "draw", "round2", "showdown")


def load_class(path):
    spec = importlib.util.spec_from_file_location("twocarddraw_entry", path)
    if spec is None or spec.loader is None:
        sys.exit(f"twocarddraw_runner: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["twocarddraw_entry"] = module
    spec.loader.exec_module(module)
    if isinstance(getattr(module, "TwoCardDraw", None), type):
        return module.TwoCardDraw
    found = [
        obj for obj in vars(module).values()
        if isinstance(obj, type) and obj.__module__ == module.__name__
        and all(callable(getattr(obj, m, None)) for m in METHODS)
    ]
    if len(found) != 1:
        sys.exit(f"twocarddraw_runner: {path} must define class TwoCardDraw "
                 f"(or exactly one class with {', '.join(METHODS)}); found {len(found)}")
    return found[0]


def bet_word(code, bets):
    """A 0/1/2 answer as the action it means with ``bets`` bets made."""
    if bets == 0:
        return "bet" if code == 2 else "check" if code in (0, 1) else str(code)
    return {0: "fold", 1: "call", 2: "raise"}.get(code, str(code))


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: twocarddraw_runner.py ENTRY.py [ARGS...]")
    entry = sys.argv[1]
    sys.argv = sys.argv[1:]  # the entry sees its own argv
    bot = load_class(entry)()
    out = sys.stdout
    opening = None  # new_hand's answer, used when the first player opens

    def reply(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "match_start":
            reply({"type": "ready"})
        elif kind == "init":
            bot.init(msg["bet1"], msg["bet2"])
        elif kind == "new_hand":
            c1, c2 = msg["cards"]
            answer = bot.new_hand(c1, c2, msg["winnings"])
            opening = answer if msg["position"] == "first" else None
        elif kind == "round1":
            c1, c2 = msg["cards"]
            bets = msg["bets"]
            if bets == 0 and opening is not None:
                action = {0: "check", 1: "bet"}.get(opening, str(opening))
            else:
                action = bet_word(bot.round1(c1, c2, bets), bets)
            reply({"type": "action", "action": action})
        elif kind == "draw":
            c1, c2 = msg["cards"]
            reply({"type": "draw", "count": bot.draw(c1, c2, msg["bets"])})
        elif kind == "round2":
            c1, c2 = msg["cards"]
            code = bot.round2(c1, c2, msg["bets1"], msg["bets2"], msg["opp_drew"])
            reply({"type": "action", "action": bet_word(code, msg["bets2"])})
        elif kind == "hand_end":
            if msg["opp_cards"] is not None:
                c1, c2 = msg["cards"]
                o1, o2 = msg["opp_cards"]
                bot.showdown(c1, c2, o1, o2)
        # match_end and anything unknown need no answer


if __name__ == "__main__":
    main()
