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
import re

import pytest
import trio

import arena

from ..conftest import PY, ROOT

pytestmark = pytest.mark.slow

HIGC = ROOT / "tests" / "bots" / "higc"
RANDOM_BOT = HIGC / "random_bot.py"
C_BOT = ROOT / "sample_bots" / "openspiel" / "build" / "random_bot"
#: OpenSpiel's files at 1a795bb6 (tests/bots/higc/README.md), with their modes
OPENSPIELS = {
    "random_bot.py": ("360d2aa699c9ae245ff9e299997c5b4d767fc62779e79ba9e70fb3aeea8db1b4", 0o644),
    "test_bot_break_pipe.sh": ("900c76c6d399ce166b83e66edb84d906589fe9a87b45e833edb38148a4e28e23", 0o755),
    "test_bot_fail_after_few_actions.py": ("2639c1d51d733cf6bbef99472350f7f75df00a310abd4a6ffbd6d9c1b9b5812b", 0o644),
    "test_bot_first_action.py": ("e82abafa04d925f7491c28e764c4ff1d3f7226ae1a41fcf14f4bd4bf79ad3797", 0o644),
    "test_bot_illegal_action.sh": ("656d4bf073b2462b942fe7c2abe7367407f6d46088504ad8c3e1aebd15c94557", 0o755),
    "test_bot_ready.sh": ("f19ea12978cdb3441f0f50be3e11d60b0fb6862548f281715f3704cb82786ce5", 0o755),
    "test_bot_sleep.sh": ("1f666c92b80392db4e082a9ccf8ae8636078a56a1923f5a4d532fc86e4b9cb11", 0o755),
    "test_bot_start.sh": ("93903d9c960b7043070488fefa1a27218343d02a1bfe3e9b7798815d795b710b", 0o755),
    "test_bot_with_non_exec_flag": ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", 0o644),
}


@pytest.mark.parametrize("name", sorted(OPENSPIELS))
def test_openspiels_higc_bots_are_its_files_unchanged(name):
    digest, mode = OPENSPIELS[name]
    assert hashlib.sha256((HIGC / name).read_bytes()).hexdigest() == digest
    assert (HIGC / name).stat().st_mode & 0o777 == mode


def _alone(command: str, level: str = "strict", game: str = "cliff_walking", startup: float = 3.0):
    """One match of ``game`` with ``command`` (``PY`` for the arena's Python) in the first seat,
    as OpenSpiel's referee test plays its failing bots (cliff_walking: a one-player game);
    any other seat the arena's C random bot."""
    plugin = arena.load_game("openspiel")
    bots = [arena.BotSpec.parse(command.replace("PY", PY).replace("HIGC", str(HIGC)))]
    bots += [arena.BotSpec.parse(f"{C_BOT} 6")] * (plugin.fixed_seats(plugin.Params(game=game)) - 1)
    with arena.open_host(level) as host:
        return trio.run(arena.run_match, plugin, bots, plugin.Params(game=game), 2,
                        arena.MatchSettings(timeout=1, startup_timeout=startup, host=host))


#: OpenSpiel's failing test bots, each with the verdict its name says (the referee disqualifies
#: them all; the arena faults the seat, in words)
FAILING = [
    ("higc:HIGC/test_bot_break_pipe.sh", "disconnected", "exited (code 0)"),
    ("higc:HIGC/test_bot_sleep.sh", "timeout", "no first reply"),
    ("higc:HIGC/test_bot_ready.sh", "timeout", "no first reply"),
    ("higc:HIGC/test_bot_start.sh", "timeout", "no reply within 1 s"),
    ("higc:HIGC/test_bot_illegal_action.sh", "illegal_action", "action 10 is not legal"),
    ("higc:PY HIGC/test_bot_fail_after_few_actions.py", "crashed", "exited with code 1"),
]


@pytest.mark.parametrize("command, kind, words", FAILING, ids=[c.rsplit("/", 1)[1] for c, _, _ in FAILING])
def test_openspiels_failing_test_bots_get_the_verdict_their_names_say(command, kind, words):
    # Started as the referee starts them (/bin/sh -c): the .sh files have no #! line.
    result = _alone(command)
    [fault] = result.faults
    assert (fault.seat, fault.kind.value) == (0, kind) and words in fault.detail, fault


@pytest.mark.parametrize("command, words", [
    ("higc:/non_existing_bot", "does not exist"),
    ("higc:HIGC/test_bot_with_non_exec_flag", "is not executable"),
])
def test_openspiels_bots_that_cannot_start_are_refused_before_anything_starts(command, words):
    with pytest.raises(arena.BadBotCommand, match=words):
        arena.BotSpec.parse(command.replace("HIGC", str(HIGC)))


@pytest.mark.parametrize("level", ["none", "basic", "strict"])
def test_openspiels_players_play_at_every_level_by_any_interpreter_path_and_shell_syntax(level, tmp_path):
    # the arena's Python by its absolute path inside its own tree (a venv's bin/python, a link
    # into it), and shell text as the referee's /bin/sh -c reads it
    for command in ("higc:PY HIGC/test_bot_first_action.py",
                    "higc:cd HIGC && PY test_bot_first_action.py 2>/dev/null | cat"):
        result = _alone(command, level, game="goofspiel(imp_info=True,points_order=descending,num_cards=4)",
                        startup=20)
        assert result.completed and not result.faults, (level, command, result.faults)


def test_a_game_without_the_referees_observations_is_refused_before_anything_starts():
    bots = [arena.BotSpec.parse(f"higc:{PY} {RANDOM_BOT}"), arena.BotSpec.parse(f"{C_BOT} 5")]
    with pytest.raises(arena.UsageError, match="liars_dice has no public and private observations"):
        arena.plan_tournament("openspiel", bots, params={"game": "liars_dice"}, seed=3, rounds=1,
                              sandbox="none", timeout=5)


def test_a_pondering_bot_is_given_the_referees_ponder_time_on_top_of_its_act_time(monkeypatch):
    # It ponders 1.2 s per observation with 1 s to act: the referee's ponder clock (here 2 s)
    # is its own, so no act is late; given 0.1 s to ponder, the same bot is late in words.
    plugin = arena.load_game("openspiel")

    def play(ponder: str):
        monkeypatch.setenv("ARENA_HIGC_PONDER", ponder)
        bots = [arena.BotSpec.parse(f"higc:{PY} {HIGC / 'ponder_bot.py'} 1.2 0"), arena.BotSpec.parse(f"{C_BOT} 4")]
        with arena.open_host("none") as host:
            return trio.run(arena.run_match, plugin, bots, plugin.Params(game="leduc_poker"), 5,
                            arena.MatchSettings(timeout=1, startup_timeout=10, host=host))

    given = play("2")
    assert given.completed and not given.faults, given.faults
    short = play("0.1")
    [fault] = short.faults
    assert (fault.seat, fault.kind.value) == (0, "timeout"), fault
    assert re.search(r"s for answering the \d+ observations? before it", fault.detail), fault.detail


@pytest.mark.parametrize("over, saved", [(5, True), (0.3, False)])
def test_tournament_over_gives_the_bot_the_referees_time_to_finish(over, saved, monkeypatch, tmp_path):
    # Kept for a series (as for a tournament), told `tournament over` at its end, it takes 1 s to
    # save what it learnt: within ARENA_HIGC_OVER it does; with less it is stopped first.
    monkeypatch.setenv("ARENA_HIGC_OVER", str(over))
    plugin = arena.load_game("openspiel")
    bots = [arena.BotSpec.parse(f"higc:{PY} {HIGC / 'ponder_bot.py'} 0 1"), arena.BotSpec.parse(f"{C_BOT} 3")]
    params = plugin.Params(game="kuhn_poker")
    with arena.open_host("none") as host:
        results = trio.run(lambda: arena.run_series(
            plugin, bots, [(params, seed) for seed in (1, 2)],
            arena.MatchSettings(timeout=5, startup_timeout=20, host=host, log_dir=tmp_path), lifetime="tournament"))
    assert [r.completed and not r.faults for r in results] == [True, True]
    said = (tmp_path / "seat0.stderr.log").read_text()
    assert ("saved what it learnt" in said) == saved, said


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
