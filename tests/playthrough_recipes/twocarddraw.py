"""twocarddraw's golden playthrough: 4 hands bot against bot (seed 7), then
3 hands against the sample strategy file (seed 8), random legal replies."""

import json
import random

from games import load_game

from ..conftest import ROOT
from ._record import record


def _reply(payload: bytes, rng: random.Random) -> str:
    msg = json.loads(payload)
    if msg["type"] == "match_start":
        return '{"type": "ready"}'
    if msg["type"] == "draw":
        return json.dumps({"type": "draw", "count": rng.randrange(3)})
    return json.dumps({"type": "action", "action": rng.choice(msg["options"])})


def _transcript(dealer, rng: random.Random) -> list[str]:
    return record(
        dealer,
        lambda seat, payload: _reply(payload, rng),
        lambda outcome: f"# payoffs {outcome.payoffs} after {outcome.hands} hands",
    )


def playthrough() -> list[str]:
    plugin = load_game("twocarddraw")
    vs = plugin.open_dialogue(plugin.Params(hands=4), random.Random(7), ["a", "b"])
    path = ROOT / "sample_bots" / "twocarddraw" / "strategy_2_4.txt"
    solo = plugin.open_dialogue(plugin.Params(hands=3, strategy=str(path)), random.Random(8), ["a"])
    # the path would make the golden depend on where the checkout lives
    lines = _transcript(vs, random.Random(7)) + _transcript(solo, random.Random(8))
    return [line.replace(str(path), "sample_bots/twocarddraw/strategy_2_4.txt") for line in lines]
