"""Every request of every installed game says in words what a correct reply
is: a report of a bot that timed out, crashed or wrote an unreadable line at
that request shows them as "expected" (the contract's default, "a reply",
says nothing)."""

from __future__ import annotations

import dataclasses

import pytest

from arena import available_games
from protocols import Exchange

from .. import scripted

NO_WORDS = next(f.default for f in dataclasses.fields(Exchange) if f.name == "expect")


def test_the_words_are_the_second_field_of_an_exchange():
    # Every dialogue passes them second: Exchange(sends, "READY").
    assert Exchange([(0, b"ping\n")], "pong").expect == "pong"
    assert Exchange([(0, b"ping\n")], "pong").reply is True


@pytest.mark.parametrize("game", sorted(available_games()))
def test_every_request_has_words_for_a_correct_reply(game):
    seats = scripted.table(game).seats
    names = [f"seat{i}" for i in range(seats)]
    legal = scripted.play(game, 3, names)
    for seat in range(seats):
        for at, step in enumerate(legal.requests[seat]):
            words = scripted.play(game, 3, names, seat, at).expected
            assert words and words != NO_WORDS, f"{game}: seat {seat}'s request {legal.steps[seat][step].read[0]!r}"
