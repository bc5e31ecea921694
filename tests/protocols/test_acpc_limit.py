"""Limit hold'em for ACPC agents (a match of ``--gamedef``): the game
definition the relay writes is the match's own (the ACPC package's file,
byte for byte, for its limit games); the codec writes raises as a bare
``r`` (learning that the game is limit at the seat's first ``act``, and
mending the states it held until then), takes an agent's ``r`` as the one
raise the ``act`` allows, and a raise past the cap as a fault in ACPC's
words (a call under ``--acpc-lenient``, as the dealer does); what ACPC
cannot express is refused, in the same words by the arena and the relay;
the ``--acpc-log`` header names the limit game. tests/protocols/test_acpc_dealer.py
holds all of it to the ACPC dealer itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.holdem import read_gamedef
from protocols.acpc import agent_fault, dealer_log, refusal

from ..conftest import ACPC
from .test_acpc_translate import Relay, _action, _codec, _hand, _lines, _start

LIMIT_2P, LIMIT_3P = "holdem.limit.2p.reverse_blinds.game", "holdem.limit.3p.game"


def _limit_start(game: str, seat: int = 0, **changes) -> dict:
    """match_start of a match of the package's ``game``, as the arena sends it (``changes``: to its gamedef)."""
    g = read_gamedef(ACPC / game).model_copy(update=changes)
    start = _start(g.num_players, seat)
    start["params"].update(stack=g.stack[0], small_blind=g.small_blind, big_blind=g.big_blind,
                           gamedef=g.model_dump(mode="json"))
    return start


def _act(to_call: int, raise_to: int | None, raises: int = 0, max_raises: int = 3, size: int = 10) -> dict:
    """A limit game's request: its one raise-to (None: the cap is reached) and the street's size, raises and cap."""
    return {"type": "act", "to_call": to_call, "min_raise_to": raise_to, "max_raise_to": raise_to,
            "raise_size": size, "raises": raises, "max_raises": max_raises}


# -- the codec ---------------------------------------------------------------------

def test_limit_raises_are_a_bare_r_the_held_states_too():
    """The codec starts after match_start: until the seat's first act it does not know
    the game is limit, and the states it held (another seat's raise in them) are mended."""
    c = _codec(0)  # 3 seats, button 2: position 0 (small blind), 1 (big blind), 2 (button)
    assert c.translate(_lines(_hand(0, 2, bets=(5, 10, 0)), _action(2, "raise", 20))) == b""
    assert c.translate(_lines(_act(15, 30, raises=1))) == (
        b"MATCHSTATE:0:3::AhKd||\r\nMATCHSTATE:0:3:r:AhKd||\r\n")
    assert c.state == "MATCHSTATE:0:3:r:AhKd||"
    # an agent's r is the one raise there is; what follows it the dealer does not read in limit
    for response in ("MATCHSTATE:0:3:r:AhKd||:r", "MATCHSTATE:0:3:r:AhKd||:R", "MATCHSTATE:0:3:r:AhKd||:r999"):
        assert json.loads(c.reply(response.encode())) == {"type": "action", "action": "raise", "to": 30}
    sent = c.translate(_lines(_action(0, "raise", 25), _action(1, "call", 20), _action(2, "raise", 20),
                              _act(10, None, raises=3)))
    assert sent.decode().split("\r\n") == ["MATCHSTATE:0:3:rr:AhKd||", "MATCHSTATE:0:3:rrc:AhKd||",
                                           "MATCHSTATE:0:3:rrcr:AhKd||", ""]
    sent = c.translate(_lines(_action(0, "call", 10), _action(1, "call", 10),
                              {"type": "street", "board": ["2c", "7h", "Kd"]}, _act(0, 10, size=10, max_raises=4)))
    assert sent.decode().split("\r\n") == ["MATCHSTATE:0:3:rrcrc:AhKd||", "MATCHSTATE:0:3:rrcrcc/:AhKd||/2c7hKd", ""]


def test_no_limit_is_learnt_the_same_way_and_keeps_its_amounts():
    c = _codec(0)
    c.translate(_lines(_hand(0, 2), _action(2, "raise", 300)))
    assert c.translate(_lines({"type": "act", "to_call": 250, "min_raise_to": 550, "max_raise_to": 20000})) == (
        b"MATCHSTATE:0:3::AhKd||\r\nMATCHSTATE:0:3:r300:AhKd||\r\n")


def test_a_raise_past_the_cap_is_an_invalid_action_in_acpc_words():
    c = _codec(0)
    c.translate(_lines(_hand(0, 1, seats=(0, 1), bets=(10, 5)), _action(1, "raise", 15), _action(0, "raise", 20),
                       _action(1, "raise", 20)))
    c.translate(_lines(_act(10, None, raises=3)))
    assert c.state == "MATCHSTATE:0:3:rrr:AhKd|"
    kind, detail, received, expected = agent_fault(c.reply(b"MATCHSTATE:0:3:rrr:AhKd|:r").decode())
    assert kind == "illegal_action" and "the raise 'r' where no raise is allowed" in detail
    assert expected == "a response to 'MATCHSTATE:0:3:rrr:AhKd|': that state followed by :c or :f"
    # where a raise is allowed, the words say r without a size
    c.translate(_lines(_hand(0, 1, seats=(0, 1), bets=(10, 5)), _action(1, "call", 5), _act(0, 20)))
    kind, _, _, expected = agent_fault(c.reply(b"MATCHSTATE:0:3:c:AhKd|:x").decode())
    assert kind == "malformed_reply"
    assert expected == "a response to 'MATCHSTATE:0:3:c:AhKd|': that state followed by :c or :r"
    # a state written with an amount is not one a limit game has
    assert json.loads(c.reply(b"MATCHSTATE:0:3:c10:AhKd|:c"))["acpc_fault"] == "bad_state"


# -- the relay ---------------------------------------------------------------------

def _definition(start: dict) -> str:
    """The game definition the relay writes for the agent of this match."""
    r = Relay(json.dumps(start), connect=False, agent=["sh", "-c", 'cat "$0" >&2', "{gamedef}"])
    _, err, _ = r.close()
    return err.split("ACPC agent:")[0]


@pytest.mark.parametrize("game", [LIMIT_2P, LIMIT_3P, "holdem.nolimit.2p.reverse_blinds.game",
                                  "holdem.nolimit.3p.game"])
def test_the_agents_get_the_matchs_own_game_definition(game):
    """The package's files, byte for byte: the relay writes a gamedef as GameDef.to_acpc does."""
    text = _definition(_limit_start(game))
    assert text == (ACPC / game).read_text() == read_gamedef(ACPC / game).to_acpc()


def test_a_limit_definition_with_stacks_and_other_caps_is_written_as_to_acpc_writes_it():
    g = read_gamedef(ACPC / LIMIT_3P).model_copy(update={"stack": (1000,) * 3, "max_raises": (2, 3, 3, 4),
                                                         "raise_size": (2, 2, 4, 4), "blind": (1, 2, 0)})
    start = _start(3)
    start["params"].update(stack=1000, small_blind=1, big_blind=2, gamedef=g.model_dump(mode="json"))
    assert refusal(start["params"]) is None
    assert _definition(start) == g.to_acpc()


def test_lenient_the_relay_plays_limit_as_the_dealer_does():
    """Under --acpc-lenient the relay knows the game from match_start: a raise past the
    cap is a call, an r the one raise, a raise's amount unread."""
    r = Relay(json.dumps(_limit_start(LIMIT_2P, seat=1)), lenient=True)
    assert r.said() == '{"type": "ready"}'
    r.send(_hand(1, 1, seats=(0, 1), bets=(10, 5)), _act(5, 20))
    assert r.state() == "MATCHSTATE:1:3::|AhKd"
    r.respond("MATCHSTATE:1:3::|AhKd:r55")
    assert json.loads(r.said()) == {"type": "action", "action": "raise", "to": 20}
    r.send(_action(1, "raise", 15), _action(0, "raise", 20), _act(10, None, raises=2, max_raises=2))
    states = [r.state() for _ in range(2)]
    assert states == ["MATCHSTATE:1:3:r:|AhKd", "MATCHSTATE:1:3:rr:|AhKd"]
    r.respond(states[-1] + ":r")
    assert json.loads(r.said()) == {"type": "action", "action": "call"}
    code, err, out = r.close()
    assert (code, out) == (0, ""), err


@pytest.mark.parametrize("changes, words", [
    ({"blind": (10, 10)}, "heads-up with equal blinds the arena asks the big blind first"),
    ({"max_raises": (3, 255, 4, 4)}, "maxRaises of at most 62 a round"),
    ({"stack": (200, 200)}, "stacks of at least 240, what the caps let a seat put in"),
])
def test_what_acpc_cannot_express_in_limit_is_refused_in_the_same_words(changes, words):
    start = _limit_start(LIMIT_2P, **changes)
    start["params"]["stack"] = start["params"]["gamedef"]["stack"][0]
    start["params"]["small_blind"] = start["params"]["gamedef"]["blind"][1]
    why = refusal(start["params"])
    assert why is not None and words in why, why
    r = Relay(json.dumps(start), connect=False)
    said = r.said()
    r.close()
    assert said == why


def test_three_seats_allow_fewer_raises_a_round():
    params = _limit_start(LIMIT_3P, max_raises=(3, 31, 4, 4))["params"]
    assert "maxRaises of at most 30 a round" in (refusal(params) or "")
    assert refusal(_limit_start(LIMIT_3P, max_raises=(3, 30, 4, 4))["params"]) is None


def test_the_packages_games_are_played():
    for game in (LIMIT_2P, LIMIT_3P, "holdem.nolimit.2p.reverse_blinds.game", "holdem.nolimit.3p.game"):
        assert refusal(_limit_start(game)["params"]) is None, game


# -- the ACPC log ------------------------------------------------------------------------

@pytest.mark.parametrize("game, seats", [(LIMIT_2P, 2), (LIMIT_3P, 3)])
def test_the_log_names_the_limit_game(game, seats):
    states = "STATE:0:cc/cc/cc/cc:AhKd|2c3c/4h5h6h/7h/8h:0|0:a|b\n"
    names = ["a", "b", "c"][:seats]

    def header(**kw) -> str:
        return dealer_log(states, path=Path("m.log"), game="holdem", seats=seats, hands=1, seed="1", timeout=1,
                          budget=None, names=names, totals=None, **kw).split("\n")[0]

    assert header(gamedef=read_gamedef(ACPC / game)) == f"# name/game/hands/seed m {game} 1 1"
    assert header(gamedef=read_gamedef(ACPC / game).model_dump(mode="json")) == f"# name/game/hands/seed m {game} 1 1"
    assert header() == f"# name/game/hands/seed m {game.replace('.limit.', '.nolimit.')} 1 1"
    # without the definition (arena holdem's --acpc-log today), a raise without an amount says limit
    assert dealer_log(states.replace("cc/cc/cc", "rc/cc/cc"), path=Path("m.log"), game="holdem", seats=seats, hands=1,
                      seed="1", timeout=1, budget=None, names=names,
                      totals=None).startswith(f"# name/game/hands/seed m {game} 1 1\n")
