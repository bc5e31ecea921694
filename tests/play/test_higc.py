"""``higc:CMD``: a bot written for OpenSpiel's competition referee (HIGC)
plays arena matches through its relay (protocols/higc/relay.py), unchanged.

OpenSpiel's own random_bot.py (tests/bots/higc/, byte for byte, its hash
checked) plays a tournament of each of two games, one bot process per
entrant for the whole tournament, so that its per-match handshake
(``start`` ... ``match over``) repeats; a HIGC bot that answers an illegal
id gets the same illegal_action fault as any bot.
"""

from __future__ import annotations

import hashlib

import pytest
import trio

import arena

from ..conftest import PY, ROOT

pytestmark = pytest.mark.slow

HIGC = ROOT / "tests" / "bots" / "higc"
RANDOM_BOT = HIGC / "random_bot.py"
C_BOT = ROOT / "sample_bots" / "openspiel" / "build" / "random_bot"
#: OpenSpiel's file at 1a795bb6 (tests/bots/higc/README.md)
SHA256 = "360d2aa699c9ae245ff9e299997c5b4d767fc62779e79ba9e70fb3aeea8db1b4"


def test_the_higc_random_bot_is_openspiels_file_unchanged():
    assert hashlib.sha256(RANDOM_BOT.read_bytes()).hexdigest() == SHA256


@pytest.mark.parametrize("game", ["kuhn_poker", "goofspiel(num_cards=3)"])
def test_openspiels_higc_random_bot_plays_a_tournament_unchanged(game, tmp_path):
    bots = [arena.BotSpec.parse(f"higc:{PY} {RANDOM_BOT}", name="higc_random"),
            arena.BotSpec.parse(f"{C_BOT} 5", name="c_random")]
    config = arena.plan_tournament("openspiel", bots, params={"game": game}, seed=3, rounds=2,
                                   lifetime="tournament", sandbox="none", timeout=5, startup_timeout=20)
    store = arena.open_store(tmp_path / "t.db")
    try:
        tid = arena.create_tournament(store, config)
        outcome = trio.run(arena.run_tournament, arena.load_game("openspiel"), config, store, tid)
        assert outcome.finished
        matches = store.matches(tid)
        standings = arena.standings_of(store, tid)["standings"]
    finally:
        store.close()
    assert len(matches) == 4  # two rounds of both seatings, by the same two processes
    assert [m["status"] for m in matches] == ["done"] * 4, [(m["status"], m["faults"]) for m in matches]
    assert all(not m["faults"] for m in matches)
    assert all(sum(m["scores"]) == pytest.approx(0) for m in matches)  # both games are zero-sum
    assert {r["bot"] for r in standings} == {"higc_random", "c_random"}


def test_a_higc_bot_that_answers_an_illegal_id_is_an_illegal_action_of_its_seat():
    plugin = arena.load_game("openspiel")
    bots = [arena.BotSpec.parse(f"{C_BOT} 1"), arena.BotSpec.parse(f"higc:{PY} {HIGC / 'illegal_bot.py'}")]
    with arena.open_host("none") as host:
        result = trio.run(arena.run_match, plugin, bots, plugin.Params(game="kuhn_poker"), 2,
                          arena.MatchSettings(timeout=5, host=host))
    [fault] = result.faults
    assert (fault.seat, fault.kind.value) == (1, "illegal_action")
    assert "999" in fault.received and "0 (Pass)" in fault.detail and "1 (Bet)" in fault.detail
    assert result.forfeit_scores[1] == -2.0  # kuhn_poker's minimum utility


def test_one_higc_process_plays_a_series_starting_each_match_with_start(tmp_path):
    # the same seat match after match: the relay keeps the bot, which is told
    # the game and seat once and then answers `start` and `match over` each time
    plugin = arena.load_game("openspiel")
    bots = [arena.BotSpec.parse(f"higc:{PY} {RANDOM_BOT}"), arena.BotSpec.parse(f"{C_BOT} 3")]
    params = plugin.Params(game="leduc_poker")
    with arena.open_host("none") as host:
        results = trio.run(lambda: arena.run_series(
            plugin, bots, [(params, seed) for seed in (1, 2, 3)],
            arena.MatchSettings(timeout=5, startup_timeout=20, host=host, log_dir=tmp_path), lifetime="tournament"))
    assert [r.completed and not r.faults for r in results] == [True] * 3
    said = (tmp_path / "seat0.stderr.log").read_text().splitlines()  # the bot's own debugging lines
    assert said.count("leduc_poker 0") == 1 and said.count("tournament over") == 1
    assert [line for line in said if line.startswith("score: ")] == [
        f"score: {int(r.seats[0].payoff)}" for r in results]
