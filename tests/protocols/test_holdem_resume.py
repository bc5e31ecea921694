"""hold'em's dialogue is a state machine that can stop between any two
exchanges and pick up again (``HoldemDealer.resume``), as a compiled
dialogue needs: a match played with the generator closed and resumed at
every exchange says the same to every seat, and ends the same, as one
played straight through, cash and freezeout, a refused reply and a seat
gone silent included. In-process, no bots."""

from __future__ import annotations

import pytest

from arena import load_game
from arena._seeds import chance_stream
from arena.play._guard import Guarded

HOLDEM = load_game("holdem")


def play(params, seats: int, resume_every_step: bool):
    """Every exchange and the outcome. Seat 1 is refused once (an illegal raise
    at its 3rd request) and seat 2 goes silent at its 5th (the driver folds it
    out and sends None, as for a timeout)."""
    dealer = HOLDEM.open_dialogue(params, chance_stream(11), [f"s{i}" for i in range(seats)])
    rng = chance_stream("replies")
    asked = [0] * seats
    said = []
    gen = Guarded(dealer, "holdem")  # stepped by hand: the test stands between two exchanges
    replies = None
    while True:
        try:
            exchange = gen.send(replies)
        except StopIteration as stop:
            return said, stop.value, dealer.scores()
        said.append((int(dealer.step), exchange.sends, exchange.reply, str(exchange.fault)))
        if resume_every_step:  # where a compiled dialogue hands a match back: an exchange due, not yet answered
            again = gen.resume()  # the generator closed, and the exchange due rendered again from the state
            assert (again.sends, again.reply, str(again.fault)) == said[-1][1:]
        replies = []
        if exchange.fault is None and exchange.reply:
            for seat, payload in exchange.sends:
                asked[seat] += 1
                if seat == 1 and asked[seat] == 3:
                    replies.append('{"type": "action", "action": "raise", "to": 1}')
                elif seat == 2 and asked[seat] == 5:
                    dealer.seat_gone(seat)
                    replies.append(None)
                else:
                    replies.append(HOLDEM.random_reply(dealer, seat, payload, rng))


@pytest.mark.parametrize("fmt,seats", [("cash", 6), ("freezeout", 3)])
def test_a_match_resumed_at_every_exchange_is_the_same_match(fmt, seats):
    params = HOLDEM.Params(**({"hands": 12} if fmt == "cash" else {"tournaments": 2, "stack": 300}))
    straight = play(params, seats, False)
    resumed = play(params, seats, True)
    assert resumed == straight
    kinds = {kind for kind, *_ in straight[0]}
    assert {3, 4, 5, 6} <= kinds  # asked, refused, told, hand over
