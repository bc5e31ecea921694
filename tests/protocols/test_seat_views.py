"""Each game's view of a seat for a person (``GamePlugin.seat_view``),
played through the real dialogue: the replies it writes (the person's
choices and the ones it gives on their behalf) are accepted to the end of
the match, and what it shows of other seats is only what the seat was told."""

from __future__ import annotations

import random

import pytest

from arena._games import load_game
from arena._seeds import chance_stream
from arena.play._stepping import step_through
from protocols.seatview import pick


def play_with_a_person_in_seat_0(game: str, raw: dict, seats: int, choose) -> tuple[list[str], object]:
    plugin = load_game(game)
    params = plugin.Params.model_validate(raw)
    run = plugin.open_dialogue(params, chance_stream("views"), [f"p{i}" for i in range(seats)])
    view = plugin.seat_view(params, 0)
    rng = random.Random(3)
    screen: list[str] = []

    def shown(payload: bytes):  # seat 0's view of a message to it: the turn it shows
        turn = None
        for line in payload.decode().splitlines():
            turn = view.feed(line)
            if turn is not None:
                screen.extend(turn.shown)
        assert turn is not None, payload
        return turn

    def told(n: int, exchange) -> None:  # a notification (a request is seen where it is answered)
        if not exchange.reply:
            for seat, payload in exchange.sends:
                if seat == 0:
                    turn = shown(payload)
                    assert turn.auto is None and not turn.choices, (payload, turn)

    def answer(n: int, seat: int, payload: bytes) -> str:
        if seat != 0:
            return plugin.random_reply(run, seat, payload, rng)
        turn = shown(payload)
        if turn.auto is not None:
            return turn.auto
        assert turn.choices and turn.prompt().endswith("] "), (payload, turn)
        word = choose(turn.choices)
        return view.reply(*pick(word, turn.choices))

    outcome = step_through(run, game, answer, on_exchange=told)
    return screen, outcome


@pytest.mark.parametrize("game, raw, seats, choose", [
    ("kuhn3", {"hands": 12}, 3, lambda cs: cs[-1].word),  # bet or call: showdowns, Money: kept right
    ("holdem", {"hands": 6}, 3, lambda cs: next((f"{c.word} {c.low}" for c in cs if c.low), cs[1].word)),
    ("vonneumann", {"sessions": 1, "games_per_session": 8}, 2,
     lambda cs: next((f"{c.word} {c.low}" for c in cs if c.low), cs[-1].word)),
])
def test_a_view_plays_a_whole_match_with_legal_replies(game, raw, seats, choose):
    screen, outcome = play_with_a_person_in_seat_0(game, raw, seats, choose)
    assert outcome.hands > 0
    assert any("over" in line for line in screen), screen[-3:]
