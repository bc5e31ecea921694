"""The JSON framing's hot path says exactly what the pydantic path says.

``encode_fields`` writes requests without building their models, and
``reply_fields`` takes replies of a model's ``fast_shape`` without pydantic
(protocols/jsonlines.py). Both are shortcuts: here every request a JSON game
sends is held to its model's own encoding, and any reply line is held to the
pydantic verdict (the same fields, or a protocol error with the same words).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from arena import available_games, load_game
from arena.play._stepping import step_through
from protocols import ProtocolError
from protocols.jsonlines import Ready, Reply, decode, fast_reply, reply_fields
from protocols.holdem import ActionReply
from protocols.vonneumann import BetReply, CallReply

JSON_GAMES = sorted(g for g in available_games() if load_game(g).message_models)


def _model_of(plugin, kind: str) -> type[BaseModel]:
    for model in plugin.message_models:
        if model.model_fields["type"].default == kind and not issubclass(model, Reply):
            return model
    raise AssertionError(f"{plugin.spec.id} sends {kind!r}, which no message model describes")


@pytest.mark.parametrize("game_id", JSON_GAMES)
def test_every_request_is_its_models_own_encoding(game_id):
    plugin = load_game(game_id)
    params = plugin.Params(**dict(plugin.playthrough_matches[0][0]))
    seats = next(n for n in range(plugin.spec.max_seats, plugin.spec.min_seats - 1, -1)
                 if _seats_ok(plugin, params, n))
    checked = 0

    def held_to_its_model(n: int, exchange) -> None:
        nonlocal checked
        for seat, payload in exchange.sends:
            model = _model_of(plugin, json.loads(payload)["type"])
            again = model.model_validate_json(payload).model_dump_json().encode() + b"\n"
            assert payload == again, f"{game_id}: {payload!r} is not its model's {again!r}"
            checked += 1

    for seed in range(4):
        run = plugin.open_dialogue(params, random.Random(seed), [f"b{i}" for i in range(seats)])
        rng = random.Random(seed + 100)
        try:
            step_through(run, game_id, lambda n, seat, payload: plugin.random_reply(run, seat, payload, rng),
                         on_exchange=held_to_its_model, on_fault=lambda fault: None)  # a refused reply: on
        except ProtocolError:
            pass  # random_reply may make an illegal move; everything before it was checked
    assert checked > 20


def _seats_ok(plugin, params, n: int) -> bool:
    try:
        plugin.check_seats(params, n)
    except ValueError:
        return False
    return True


def _verdict(seat: int, line: str, model: type[Reply], fast: bool):
    try:
        got = reply_fields(seat, line, model, "x") if fast else dict(decode(seat, line, model, "x"))
    except ProtocolError as exc:
        return ("error", exc.kind, exc.reason, exc.received)
    except ValueError as exc:  # an integer too long to convert: the games wrap it in words
        return ("value", str(exc))
    return ("ok", got, {k: type(v) for k, v in got.items()})


PIECES = ['{', '}', '"type"', ':', ',', '"bet"', '"call"', '"ready"', '"amount"', '"call"', '1', '-3', '0',
          '2.5', '1e2', 'true', 'false', 'null', '"1"', ' ', 'NaN', '99999999999999999999', '-9223372036854775809',
          '[]', '{}', '"\\u0000"', '"\\ud800"', '"é"', '\t']
near_json = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)
lines = st.one_of(near_json, st.text(max_size=60), st.sampled_from([
    '{"type":"bet","amount":5}', '{"type": "bet", "amount": -1}', '{"amount":5,"type":"bet"}',
    '{"type":"bet","amount":5,"amount":6}', '{"type":"bet","amount":true}', '{"type":"call","call":true}',
    '{"type":"call","call":1}', '{"type":"ready"}', '{"type":"ready","x":1}', '{"type":"bet","amount":5.0}',
]))


@settings(max_examples=800, deadline=None)
@given(lines, st.sampled_from([BetReply, CallReply, Ready]))
def test_any_reply_line_gets_the_pydantic_verdict(line, model):
    assert _verdict(1, line, model, fast=True) == _verdict(1, line, model, fast=False)


HOLDEM_PIECES = ['{', '}', '"type"', '"action"', ':', ',', '"fold"', '"call"', '"raise"', '"allin"', '"check"',
                 '"to"', '5', '0', '-1', '2.0', 'true', 'null', '"5"', ' ', '99999999999999999999']
holdem_lines = st.one_of(st.lists(st.sampled_from(HOLDEM_PIECES), max_size=16).map("".join), st.sampled_from([
    '{"type":"action","action":"raise","to":300}', '{"type":"action","action":"raise"}',
    '{"type":"action","action":"call","to":5}', '{"type":"action","action":"raise","to":null}',
    '{"type":"action","action":"raise","to":true}', '{"type":"action","action":"raise","to":5.0}',
    '{"type":"action","action":"check"}', '{"action":"fold","type":"action"}',
]))


@settings(max_examples=300, deadline=None)
@given(holdem_lines)
def test_any_holdem_reply_gets_the_pydantic_verdict(line):
    """ActionReply has several fast shapes (fold, call, allin, raise with "to")."""
    assert _verdict(0, line, ActionReply, fast=True) == _verdict(0, line, ActionReply, fast=False)


@pytest.mark.parametrize("line, model, fast", [
    ('{"type":"action","action":"raise","to":300}', ActionReply, True),
    ('{"type": "action", "action": "fold"}', ActionReply, True),
    ('{"type":"action","action":"raise","to":null}', ActionReply, False),  # pydantic refuses it, in words
    ('{"type":"action","action":"check"}', ActionReply, False),
    ('{"type":"bet","amount":5}', BetReply, True),
    ('{"type": "bet", "amount": -40}', BetReply, True),
    ('{"type":"call","call":false}', CallReply, True),
    ('{"type":"ready"}', Ready, True),
    ('{"type":"bet","amount":5.0}', BetReply, False),  # a float amount: pydantic judges it
    ('{"type":"bet","amount":true}', BetReply, False),
    ('{"type":"call","call":false,"why":1}', CallReply, False),
    ('{"type":"bet","amount":5}', CallReply, False),
])
def test_the_commonest_replies_and_only_those_take_the_shortcut(line, model, fast):
    assert (fast_reply(line, model) is not None) is fast
    if fast:
        assert fast_reply(line, model) == dict(decode(0, line, model, "x"))
