"""rpsdraft's golden playthrough: one default match, seed 11, random legal indices."""

import json
import random

from games import load_game


def playthrough() -> list[str]:
    plugin = load_game("rpsdraft")
    dealer = plugin.open_dialogue(plugin.Params(), random.Random(11), ["a", "b"])
    rng = random.Random(11)
    transcript = []
    gen = dealer.run()
    replies = None
    try:
        while True:
            exchange = gen.send(replies)
            replies = []
            for seat, payload in exchange.sends:
                line = payload.decode().rstrip("\n")
                transcript.append(f"{seat} -> {line}")
                if not exchange.reply:
                    continue
                msg = json.loads(line)
                if msg["type"] == "match_start":
                    reply = {"type": "ready"}
                elif msg["type"] == "draft_pick":
                    reply = {"type": "pick", "index": rng.randrange(len(msg["cards"]))}
                else:
                    reply = {"type": "play", "index": rng.randrange(len(msg["hand"]))}
                text = json.dumps(reply)
                transcript.append(f"{seat} <- {text}")
                replies.append(text)
    except StopIteration as stop:
        transcript.append(f"# turns won {stop.value.payoffs} after {stop.value.hands} turns")
    return transcript
