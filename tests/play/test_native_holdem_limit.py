"""Limit hold'em on the compiled path: the compiled dialogue
(``protocols/holdem_compiled.c``) plays limit matches through the same
engine (it includes ``games/holdem/_engine.c``, whose hands carry their
limit), and plays the same matches as the pure-Python dialogue, line for
line: the ACPC package's heads-up and three-seat limit games, and a
six-seat one with short stacks. Its ``act`` is the Python dialogue's, byte
for byte, in random limit hands. The helpers are test_native.py's."""

from __future__ import annotations

import random

import pytest

from games.holdem import HoldemHand, HoldemParams

from ..conftest import ACPC
from .test_native import assert_same_match, both_ways, patient
from .test_native_holdem import CALL, HOLDEM, RULE, _renderer

__all__ = ["patient"]  # a fixture, used by name


def _six_seats(tmp_path) -> str:
    path = tmp_path / "six.game"
    path.write_text("GAMEDEF\nlimit\nnumPlayers = 6\nnumRounds = 4\nstack = 90 90 90 90 90 90\nblind = 1 2 0 0 0 0\n"
                    "raiseSize = 2 2 4 4\nfirstPlayer = 3 1 1 1\nmaxRaises = 3 4 4 4\nnumSuits = 4\nnumRanks = 13\n"
                    "numHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n")
    return str(path)


@pytest.mark.parametrize("game", ["2p", "3p", "6p"])
def test_the_compiled_betting_plays_the_same_limit_match(game, patient, tmp_path):
    path = {"2p": str(ACPC / "holdem.limit.2p.reverse_blinds.game"), "3p": str(ACPC / "holdem.limit.3p.game"),
            "6p": _six_seats(tmp_path)}[game]
    params = HoldemParams(hands=60, gamedef=path)
    seats = params.gamedef.num_players if params.gamedef is not None else 0
    commands = [(RULE, CALL)[i % 2] for i in range(seats)]
    native, pure, nl, pl = both_ways(HOLDEM, commands, params, 9, host=patient)
    assert native.completed and native.hands == 60
    assert_same_match(native, pure, nl, pl)
    assert native.native_messages > native.exchanges / 2, (native.native_messages, native.exchanges)
    acts = [text for seat_lines in nl.values() for _, text in seat_lines if '"type":"act"' in text]
    assert acts and all('"raise_size":' in a and '"max_raises":' in a for a in acts)


def test_every_limit_act_the_compiled_dialogue_renders_is_the_python_dialogues():
    c = _renderer()
    rng = random.Random(45)
    rendered = 0
    for number in range(400):
        seats = rng.randint(2, 10)
        stacks = [rng.choice((rng.randint(1, 40), rng.randint(41, 400))) for _ in range(seats)]
        sizes = (rng.randint(1, 10),) * 2 + (rng.randint(1, 20),) * 2
        caps = tuple(rng.randint(0, 5) for _ in range(4))
        limit = (sizes, caps)
        dealer = HOLDEM.open_dialogue(HOLDEM.Params(hands=10), random.Random(0), ["a"] * seats)
        dealer._limit = limit  # the dialogue of a limit game (as HoldemParams.limit() would give it)
        hand = HoldemHand(stacks, rng.randrange(seats), 1, 2, 0, rng.sample(range(52), 2 * seats + 5), limit=limit)
        while not hand.over:
            seat = hand.to_act
            python = dealer._ask(hand, seat, number).sends[0][1]
            assert c.render("act", hand, number, seat, 0) == python, (hand.limit, python)
            rendered += 1
            legal = hand.legal()
            action = rng.choice(legal.actions)
            hand.act(action, legal.min_to if action == "raise" else None)
    assert rendered > 1000
