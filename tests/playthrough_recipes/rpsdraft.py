"""rpsdraft's golden playthrough: one default match, seed 11, random legal indices."""

import json
import random

from games import load_game

from ._record import record


def playthrough() -> list[str]:
    plugin = load_game("rpsdraft")
    dealer = plugin.open_dialogue(plugin.Params(), random.Random(11), ["a", "b"])
    rng = random.Random(11)

    def answer(seat: int, payload: bytes) -> str:
        msg = json.loads(payload)
        if msg["type"] == "match_start":
            reply = {"type": "ready"}
        elif msg["type"] == "draft_pick":
            reply = {"type": "pick", "index": rng.randrange(len(msg["cards"]))}
        else:
            reply = {"type": "play", "index": rng.randrange(len(msg["hand"]))}
        return json.dumps(reply)

    return record(
        dealer, answer, lambda outcome: f"# turns won {outcome.payoffs} after {outcome.hands} turns"
    )
