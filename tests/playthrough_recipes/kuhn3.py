"""kuhn3's golden playthrough: 6 hands, seed 7, random legal replies."""

import random

from games import load_game

from ..kuhn3_helpers import playthrough as run


def playthrough() -> list[str]:
    plugin = load_game("kuhn3")
    dealer = plugin.open_dialogue(plugin.Params(hands=6), random.Random(7), ["a", "b", "c"])
    return run(dealer, random.Random(7))
