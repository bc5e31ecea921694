"""twocarddraw's golden playthrough: 4 hands bot against bot (seed 7), then
3 hands against the sample strategy file (seed 8), random legal replies."""

import json
import random

from games import load_game

from ..conftest import ROOT


def _reply(payload: bytes, rng: random.Random) -> str:
    msg = json.loads(payload)
    if msg["type"] == "match_start":
        return '{"type": "ready"}'
    if msg["type"] == "draw":
        return json.dumps({"type": "draw", "count": rng.randrange(3)})
    return json.dumps({"type": "action", "action": rng.choice(msg["options"])})


def _transcript(dealer, rng: random.Random) -> list[str]:
    lines = []
    gen = dealer.run()
    replies = None
    try:
        while True:
            exchange = gen.send(replies)
            replies = []
            for seat, payload in exchange.sends:
                lines.append(f"{seat} -> {payload.decode().rstrip()}")
                if exchange.reply:
                    reply = _reply(payload, rng)
                    lines.append(f"{seat} <- {reply}")
                    replies.append(reply)
    except StopIteration as stop:
        lines.append(f"# payoffs {stop.value.payoffs} after {stop.value.hands} hands")
    return lines


def playthrough() -> list[str]:
    plugin = load_game("twocarddraw")
    vs = plugin.open_dialogue(plugin.Params(hands=4), random.Random(7), ["a", "b"])
    path = ROOT / "sample_bots" / "twocarddraw" / "strategy_2_4.txt"
    solo = plugin.open_dialogue(plugin.Params(hands=3, strategy=str(path)), random.Random(8), ["a"])
    # the path would make the golden depend on where the checkout lives
    lines = _transcript(vs, random.Random(7)) + _transcript(solo, random.Random(8))
    return [line.replace(str(path), "sample_bots/twocarddraw/strategy_2_4.txt") for line in lines]
