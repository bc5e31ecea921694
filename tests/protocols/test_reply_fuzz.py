"""Fuzz every installed game's dialogue: any bytes a bot sends as a reply
are accepted, or become a protocol fault of the seat that sent them (or the
line reader's malformed_reply); never an exception of another kind, never a
fault laid on another seat, never a hang.

First in-process, many examples against each plugin's dialogue (the other
replies legal, from its ``random_reply``); then a few matches of real
processes sending random bytes now and then.
"""

from __future__ import annotations

import re

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import BotSpec, FaultKind, MatchSettings, available_games, load_game, run_match
from arena._checks import game_params

from .. import scripted
from ..conftest import processes_with, python_bot

GAMES = sorted(available_games())
#: bytes that break parsers more often than random ones do
CORNERS = [b" ", b"  ", b",", b":", b"-", b"0", b"1", b"2.5", b"99999999999999999999", b"1e999", b"NaN", b"null",
           b"true", b'"', b"{", b"}", b"[", b"]", b"\r", b"\t", b"\xff", b"\xc3", "\u0663".encode(), b"\x00"]


def pieces(game: str) -> list[bytes]:
    """The game's own legal replies cut into words and punctuation, and the corners."""
    names = [f"seat{i}" for i in range(scripted.table(game).seats)]
    played = scripted.play(game, 1, names)
    found = {part for steps in played.steps for step in steps if step.reply is not None
             for part in re.split(rb"([\s,:{}\[\]\"])", step.reply) if part}
    return sorted(found) + CORNERS


@pytest.mark.parametrize("game", GAMES)
def test_any_reply_bytes_are_accepted_or_a_protocol_fault_of_that_seat(game):
    seats = scripted.table(game).seats
    names = [f"seat{i}" for i in range(seats)]
    near_miss = st.lists(st.sampled_from(pieces(game)), max_size=14).map(b"".join)

    @settings(max_examples=250, deadline=None)
    @given(st.one_of(st.binary(max_size=120), near_miss), st.integers(0, seats - 1), st.integers(0, 30),
           st.integers(0, 2**32 - 1))
    def check(junk, seat, at, seed):
        played = scripted.play(game, seed, names, seat, at, junk)
        assert [e.seat for e in played.refused] == [seat] * len(played.refused), played.refused
        if played.verdict is not None:
            assert played.verdict.kind in ("malformed_reply", "illegal_action")
            assert played.verdict.received is not None and played.verdict.reason
        elif played.line_fault is not None:
            assert played.line_fault.kind is FaultKind.MALFORMED_REPLY
        else:  # accepted (or never sent: the seat had fewer requests): the match went on to its end
            assert played.ended

    check()


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("game", GAMES)
def test_random_bytes_from_real_processes(game, seed, tag, tmp_path):
    # Every seat replays a legal match, and from its second request on sends
    # random bytes now and then (tests/bots/misbehave_any.py, mode fuzz).
    table = scripted.table(game)
    script = tmp_path / "script.json"
    commands = [python_bot("misbehave_any.py", str(script), str(s), tag) for s in range(table.seats)]
    played = scripted.play(game, seed, scripted.names_of(commands))
    modes = {s: {"mode": "fuzz", "trigger": played.requests[s][1], "fuzz_seed": 10 * seed + s}
             for s in range(table.seats)}
    scripted.write_script(script, played, modes)
    plugin = load_game(game)
    result = trio.run(run_match, plugin, [BotSpec.parse(c) for c in commands],
                      game_params(plugin, table.params, keys=True), seed,
                      MatchSettings(timeout=0.5, startup_timeout=10))
    assert result.completed or result.faults
    # Fail-fast: one fault ends the match, unless the game plays on without the seat.
    assert len(result.faults) == 1 or result.played_on or result.completed
    for fault in result.faults:
        assert fault.kind in set(FaultKind) and fault.kind is not FaultKind.FAILED_TO_START
        assert 0 <= fault.seat < table.seats and fault.detail
    assert processes_with(tag) == []
