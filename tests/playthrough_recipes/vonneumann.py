"""vonneumann's golden playthrough: 2 sessions of up to 6 games, seed 7, random replies."""

import json
import random

from games import load_game

from ._record import record


def reply(payload: bytes, rng: random.Random) -> str | None:
    message = json.loads(payload)
    kind = message["type"]
    if kind == "match_start":
        return '{"type":"ready"}'
    if kind == "a_turn":
        # Passes, ordinary bets, and bets above every limit (which get cut).
        return json.dumps({"type": "bet", "amount": rng.choice([0, -3, rng.randint(1, 60), 500])})
    if kind == "b_turn":
        return json.dumps({"type": "call", "call": rng.random() < 0.6})
    return None  # match_end is a notification


def playthrough() -> list[str]:
    plugin = load_game("vonneumann")
    params = plugin.Params(sessions=2, games_per_session=6)
    dealer = plugin.open_dialogue(params, random.Random(7), ["alice", "bob"])
    rng = random.Random(7)
    return record(
        dealer,
        lambda seat, payload: reply(payload, rng),
        lambda outcome: f"# payoffs {outcome.payoffs} after {outcome.hands} games, "
        f"sessions {outcome.extra['session_games']}, scores {dealer.scores()}",
    )
