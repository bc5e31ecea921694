"""vonneumann's dialogue in-process: what each seat is sent, how replies are judged."""

from __future__ import annotations

import json
import random
import struct

import pytest

from arena import load_game
from games.vonneumann import VonNeumannParams
from protocols import ProtocolError
from protocols.vonneumann import MODELS, VonNeumannDealer, seeded_deal

PLUGIN = load_game("vonneumann")


def rigged(cards):
    it = iter(cards)
    return lambda: next(it)


def drive(dealer, answer):
    """Run a dialogue; ``answer(seat, message) -> line``. Returns (sent messages, outcome)."""
    sent = []
    gen = dealer.run()
    replies = None
    try:
        while True:
            exchange = gen.send(replies)
            replies = []
            for seat, payload in exchange.sends:
                assert payload.endswith(b"\n") and payload.count(b"\n") == 1
                message = json.loads(payload)
                sent.append((seat, message))
                if exchange.reply:
                    replies.append(answer(seat, message))
    except StopIteration as stop:
        return sent, stop.value


def simple(seat, message, bet=5, call=True):
    if message["type"] == "match_start":
        return '{"type":"ready"}'
    if message["type"] == "a_turn":
        return json.dumps({"type": "bet", "amount": bet})
    return json.dumps({"type": "call", "call": call})


def test_a_match_is_framed_and_every_request_carries_the_bot_struct():
    params = VonNeumannParams(sessions=1, games_per_session=3)
    cards = [(0.75, 0.25), (0.5, 0.125), (0.0, 0.9990234375)]
    dealer = VonNeumannDealer(params, rigged(cards), ["x", "y"])
    sent, outcome = drive(dealer, simple)
    kinds = [(seat, m["type"]) for seat, m in sent]
    assert kinds == [
        (0, "match_start"), (1, "match_start"),
        (0, "a_turn"), (1, "b_turn"),
        (1, "a_turn"), (0, "b_turn"),
        (0, "a_turn"), (1, "b_turn"),
        (0, "match_end"), (1, "match_end"),
    ]
    first_a, first_b = sent[2][1], sent[3][1]
    assert first_a == {"type": "a_turn", "match": 0, "session": 0, "game": 0, "match_game": 0,
                       "card": 0.75, "opponent_previous_card": -1.0, "money": 100,
                       "opponent_money": 100, "max_bet": 50}
    assert first_b["card"] == 0.25 and first_b["bet"] == 5 and "max_bet" not in first_b
    # Game 0 was a showdown won by seat 0 (+15): seat 1, now A, sees seat 0's card and the money.
    second_a = sent[4][1]
    assert (second_a["card"], second_a["opponent_previous_card"]) == (0.5, 0.75)
    assert (second_a["money"], second_a["opponent_money"]) == (85, 115)
    # +15 for seat 0, then +15 for seat 1 (0.5 > 0.125), then +15 for seat 1 (B's 0.999 wins).
    assert outcome.payoffs == [-15, 15] and outcome.hands == 3
    assert sent[-1][1]["scores"] == pytest.approx([-15 / 3**0.5, 15 / 3**0.5])


def test_a_pass_asks_nobody_else_and_a_fold_hides_the_cards():
    params = VonNeumannParams(sessions=1, games_per_session=3)
    dealer = VonNeumannDealer(params, rigged([(0.75, 0.25), (0.5, 0.125), (0.3, 0.4)]), ["x", "y"])

    def answer(seat, message):
        if message["type"] == "a_turn":
            return json.dumps({"type": "bet", "amount": 0 if message["match_game"] == 0 else 9})
        return simple(seat, message, call=False)

    sent, _ = drive(dealer, answer)
    turns = [(seat, m) for seat, m in sent if m["type"] in ("a_turn", "b_turn")]
    assert [(s, m["type"]) for s, m in turns] == [(0, "a_turn"), (1, "a_turn"), (0, "b_turn"), (0, "a_turn"),
                                                  (1, "b_turn")]
    assert turns[1][1]["opponent_previous_card"] == 0.75  # a pass is a showdown
    assert turns[3][1]["opponent_previous_card"] == -1.0  # after the fold


def test_max_bet_in_a_turn_is_the_limit_in_force():
    params = VonNeumannParams(sessions=1, games_per_session=2, stack=60)
    dealer = VonNeumannDealer(params, rigged([(0.9, 0.1), (0.9, 0.1)]), ["x", "y"])
    sent, _ = drive(dealer, lambda s, m: simple(s, m, bet=40 if m.get("match_game") == 0 else 1000))
    a_turns = [m for _, m in sent if m["type"] == "a_turn"]
    b_turns = [m for _, m in sent if m["type"] == "b_turn"]
    assert a_turns[0]["max_bet"] == 50 and b_turns[0]["bet"] == 40
    # Seat 0 won ante + bet = 50: now 110 against 10, so seat 1 (A) can bet at most 10.
    assert a_turns[1]["max_bet"] == 10 and b_turns[1]["bet"] == 10


def test_match_index_alternates_who_is_a_first():
    params = VonNeumannParams(sessions=1, games_per_session=1)
    for index, first in ((0, 0), (1, 1), (2, 0)):
        dealer = PLUGIN.open_dialogue(params, random.Random(1), ["x", "y"], index)
        sent, _ = drive(dealer, simple)
        assert [s for s, m in sent if m["type"] == "a_turn"] == [first]
        assert all(m["match"] == index for _, m in sent if m["type"] != "match_start")


def test_cards_are_exact_c_floats_and_survive_the_wire():
    deal = seeded_deal(random.Random(3))
    for _ in range(20000):
        for card in deal():
            assert 0.0 <= card < 1.0
            assert struct.unpack("f", struct.pack("f", card))[0] == card  # exactly a float32
            assert card * 2**24 == int(card * 2**24)
    dealer = PLUGIN.open_dialogue(VonNeumannParams(sessions=3), random.Random(9), ["x", "y"])
    sent, _ = drive(dealer, simple)
    engine_cards = [r.cards for r in dealer.state.results]
    wire = [m["card"] for _, m in sent if m["type"] in ("a_turn", "b_turn")]
    assert wire[:2] == [engine_cards[0][0], engine_cards[0][1]]  # the same doubles, not rounded


def test_context_and_standings_follow_the_game():
    dealer = PLUGIN.open_dialogue(VonNeumannParams(sessions=2, games_per_session=2), random.Random(2), ["x", "y"])
    assert dealer.context()["hand"] is None
    gen = dealer.run()
    gen.send(None)
    gen.send(['{"type":"ready"}'] * 2)  # now the first a_turn is out
    assert dealer.context() == {"hand": 0, "session": 0, "game": 0}
    assert dealer.standings() == (0, [0, 0])


GOOD_BET = '{"type":"bet","amount":5}'


@pytest.mark.parametrize(
    "line, kind, words",
    [
        ("lol", "malformed_reply", "not JSON"),
        ('{"type":"bet","amount":}', "malformed_reply", "not JSON"),
        ("[1,2]", "malformed_reply", "JSON object"),
        ('{"type":"call","call":true}', "malformed_reply", "type 'bet'"),
        ('{"amount":5}', "malformed_reply", "type 'bet'"),
        ('{"type":"bet"}', "malformed_reply", "amount"),
        ('{"type":"bet","amount":5,"extra":1}', "malformed_reply", "extra"),
        ('{"type":"bet","amount":"5"}', "malformed_reply", "amount"),
        ('{"type":"bet","amount":true}', "malformed_reply", "amount"),
        ('{"type":"bet","amount":null}', "malformed_reply", "amount"),
        ('{"type":"bet","amount":NaN}', "malformed_reply", "finite"),
        ('{"type":"bet","amount":Infinity}', "malformed_reply", "finite"),
        ('{"type":"bet","amount":1e999}', "malformed_reply", "finite"),
        ('{"type":"bet","amount":' + "9" * 5000 + "}", "malformed_reply", "digits"),
        ('{"type":"bet","amount":2.5}', "illegal_action", "whole dollars"),
        ('{"type":"bet","amount":-0.5}', "illegal_action", "whole dollars"),
    ],
)
def test_bad_bets_are_typed_faults_naming_the_seat(line, kind, words):
    dealer = PLUGIN.open_dialogue(VonNeumannParams(sessions=1), random.Random(1), ["x", "y"], 1)
    with pytest.raises(ProtocolError) as info:
        drive(dealer, lambda s, m: line if m["type"] == "a_turn" else simple(s, m))
    err = info.value
    assert (err.kind, err.seat) == (kind, 1)  # match 1: seat 1 is A first
    assert words in err.reason and err.received == line and '"bet"' in err.expected


@pytest.mark.parametrize("line", ['{"type":"call","call":1}', '{"type":"call","call":"true"}',
                                  '{"type":"call"}', GOOD_BET, '{"type":"call","call":null}'])
def test_bad_calls_are_malformed(line):
    dealer = PLUGIN.open_dialogue(VonNeumannParams(sessions=1), random.Random(1), ["x", "y"])
    with pytest.raises(ProtocolError) as info:
        drive(dealer, lambda s, m: line if m["type"] == "b_turn" else simple(s, m))
    assert (info.value.kind, info.value.seat) == ("malformed_reply", 1)


@pytest.mark.parametrize("amount, placed", [("7.0", 7), ("1e3", 50), ("-1e300", 0), ("-0", 0), ("12", 12)])
def test_numbers_that_are_whole_dollars_are_accepted(amount, placed):
    params = VonNeumannParams(sessions=1, games_per_session=1)
    dealer = VonNeumannDealer(params, rigged([(0.5, 0.25)]), ["x", "y"])
    sent, _ = drive(dealer, lambda s, m: '{"type":"bet","amount":%s}' % amount if m["type"] == "a_turn"
                    else simple(s, m))
    assert dealer.state.results[0].bet == placed
    assert ("b_turn" in [m["type"] for _, m in sent]) == (placed > 0)


def test_every_model_has_a_type_and_exports_a_schema():
    for model in MODELS:
        schema = model.model_json_schema()
        assert "type" in schema["properties"]
    assert {m.__name__ for m in MODELS} >= {"ATurn", "BTurn", "BetReply", "CallReply"}
