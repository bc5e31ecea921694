"""A game's own code is contained (issue 43): a dialogue that raises, spins
or asks nobody anything for ever ends its match with a verdict that names
the game, no seat blamed, and the arena goes on (tests/failing_games.py)."""

from __future__ import annotations

import json
import subprocess
import time

import pytest
import trio

from arena import BotSpec, MatchSettings, run_match
from arena.play._host import open_host
from arena_pennies import PLUGIN as PENNIES

from ..conftest import PY, ROOT, clean_env, replay_key
from ..failing_games import AT, FAILING, install

COPY = ROOT / "examples" / "pennies" / "arena_pennies" / "bots" / "copy_bot.py"
RANDOM = ROOT / "examples" / "pennies" / "arena_pennies" / "bots" / "random_bot.py"
BOTS = [BotSpec.parse(f"python3 {RANDOM} --seed 1"), BotSpec.parse(f"python3 {COPY}")]

#: what each failure is called in the verdict
WORDS = {
    "raises": "its dialogue raised ZeroDivisionError: division by zero",
    "spins": "its dialogue computed for more than 0.5 s without sending a message or ending the match",
    "idles": "its dialogue yielded 10,000 exchanges in a row that send nothing, and the match is not over",
    "bad_scores": "its dialogue raised RuntimeError: no scores today",  # (its end of match asks for them)
}


def _play(plugin, tmp_path):
    params = plugin.Params(throws=6)
    with open_host(warn=lambda text: None) as host:
        settings = MatchSettings(host=host, log_dir=tmp_path, game_seconds=0.5, timeout=5.0)
        started = time.monotonic()
        result = trio.run(run_match, plugin, BOTS, params, 1, settings)
    return result, time.monotonic() - started


@pytest.mark.parametrize("how", sorted(WORDS))
def test_a_failing_game_ends_its_match_with_a_verdict_naming_it_and_no_seat_blamed(how, tmp_path):
    result, took = _play(FAILING[how], tmp_path)
    assert not result.completed
    assert result.faults == []  # no seat is to blame
    assert result.game_error == f"game pennies-{how}: {WORDS[how]} (a bug in the game, not in a bot)"
    assert result.tournament_scores == [0.0, 0.0] and result.forfeit_scores is None  # a void match
    assert result.to_json()["game_error"] == result.game_error
    assert took < 30  # the spin was cut short (a generous bound: only a hang fails it)


def test_the_same_game_without_the_planted_failure_completes(tmp_path):
    """The control: the failing games are pennies but for their failure."""
    result, _ = _play(PENNIES, tmp_path)
    assert result.completed and result.game_error is None and result.hands == 6
    assert AT < 6  # the failures are planted inside the match


# -- in a tournament: one match void, the tournament goes on ---------------------------

@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The failing games registered as a distribution would register them."""
    from arena import _games

    path = install(tmp_path / "site")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    for cached in (_games._registered, _games.load_game):
        cached.cache_clear()
    yield path
    for cached in (_games._registered, _games.load_game):
        cached.cache_clear()


def test_a_tournament_of_kept_processes_records_each_failed_match_and_plays_on(installed, tmp_path):
    """One process per entrant (``--lifetime tournament``): a game that raises in
    every match used to end the whole run with a traceback (exit 3)."""
    import arena
    from arena.tournament._config import TournamentConfig

    plugin = arena.load_game("pennies-raises")
    bots = [BotSpec.parse(f"python3 {RANDOM} --seed 1", name="random"), BotSpec.parse(f"python3 {COPY}", name="copy")]
    config = TournamentConfig(game=plugin.spec.id, params={"throws": 6}, bots=bots, seed=replay_key(5), rounds=2,
                              lifetime="tournament", timeout=5.0)
    store = arena.open_store(tmp_path / "t.db")
    try:
        tid = arena.create_tournament(store, config)
        outcome = trio.run(arena.run_tournament, plugin, config, store, tid)
        matches = store.matches(tid)
        table = arena.standings_of(store, tid)["standings"]
    finally:
        store.close()
    assert outcome.finished and len(matches) == 4  # every match of both rounds was played
    assert {m["status"] for m in matches} == {"void"} and all(m["faults"] == [] for m in matches)
    assert all("game pennies-raises: its dialogue raised ZeroDivisionError" in m["timings"]["game_error"]
               for m in matches)
    assert [(r["matches"], r["faults"]) for r in table] == [(0, {}), (0, {})]  # it counts for nobody


@pytest.mark.parametrize("how", ["raises", "spins"])
def test_a_tournament_in_worker_processes_records_each_failed_match_and_plays_on(how, installed, tmp_path):
    """Fresh processes per match, played by worker processes: the command as a
    user runs it. Each match is void with the game named, the tournament ends
    as planned, and the bots are never charged."""
    env = clean_env()
    env["PYTHONPATH"] = installed
    env["ARENA_GAME_SECONDS"] = "0.5"  # the spinning game's steps are cut at this
    bots = [f"random=python3 {RANDOM} --seed 1", f"copy=python3 {COPY}"]
    proc = subprocess.run([PY, "-m", "arena", "tournament", f"pennies-{how}", *bots, "-p", "throws=6",
                           "--db", str(tmp_path / "t.db"), "--json"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    voids = [line for line in proc.stderr.splitlines() if line.startswith("Finished match ")]
    assert len(voids) == 2 and all(f": void, no seat blamed: game pennies-{how}: its dialogue " in line
                                   for line in voids), proc.stderr
    result = json.loads(proc.stdout)
    assert result["completed"] and [m["status"] for m in result["match_list"]] == ["void", "void"]
    assert all(s["faults"] == {} and s["matches"] == 0 for s in result["standings"])


# -- check-game: a game whose code fails is reported within seconds --------------------

@pytest.mark.parametrize("how", ["raises", "spins", "idles"])
def test_check_game_reports_a_failing_game_within_seconds(how):
    from arena.quarantine._conformance import check_game

    started = time.monotonic()
    checks = check_game(FAILING[how])
    took = time.monotonic() - started
    failed = [c for c in checks if not c.ok]
    words = {"raises": "its dialogue raised ZeroDivisionError",
             "spins": "its dialogue computed for more than 5 s",
             "idles": "its dialogue yielded 10,000 exchanges in a row that send nothing"}[how]
    assert failed and f"game pennies-{how}: {words}" in " ".join([failed[0].summary, *failed[0].details]), \
        [c.line() for c in checks]
    # The first check that plays it into the failure says so; every check after it says it could not run
    # (a check that cannot run is a failure, never "ok"), and none plays it again.
    after = checks[checks.index(failed[0]) + 1:]
    assert after and all(not c.ok and c.summary.startswith("not run: the game's own code failed") for c in after), \
        [c.line() for c in checks]
    assert took < 120, took  # (a bound for a hang only: the spin is cut at 5 s, once)


# -- quarantine: a game that fails is no verdict on the bot ---------------------------

@pytest.mark.parametrize("how", ["raises", "spins"])
def test_quarantine_of_a_failing_game_judges_no_bot(how, installed, tmp_path):
    """The step the game broke is a failure (a check that cannot run is not a
    pass), the verdict says the game failed, not the bot, exit code 3 (not 1, the
    bot's failure), and the JUnit file has an error, not a failure."""
    env = clean_env()
    env["PYTHONPATH"] = installed
    env["ARENA_GAME_SECONDS"] = "0.5"
    junit = tmp_path / "q.xml"
    proc = subprocess.run([PY, "-m", "arena", "quarantine", f"pennies-{how}", str(COPY), "--seed", replay_key(3),
                           "--sandbox", "none", "--junit", str(junit)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"step 1/8 FAIL the bot starts: the game failed, not the bot under test, in match 1 "
                               f"of 6: game pennies-{how}: its dialogue "), proc.stdout
    assert lines[-1].startswith("quarantine NOT JUDGED: the game failed at step 1/8, not the bot"), proc.stdout
    xml = junit.read_text()
    assert 'errors="1"' in xml and 'failures="0"' in xml and 'type="GameError"' in xml, xml


def test_a_spin_that_begins_after_the_watcher_went_to_sleep_is_cut_all_the_same():
    """The watcher of game code sleeps when no step has run for a second (an idle
    server is not woken for nothing); the next step wakes it."""
    from arena.play import _guard

    with _guard.game_code("warm-up", "its dialogue"):
        pass  # the watcher is started
    deadline = time.monotonic() + 30
    while not _guard._step.sleeping:  # waiting for the state under test, not for time to pass
        assert time.monotonic() < deadline, "the watcher never went to sleep"
        time.sleep(0.01)
    started = time.monotonic()
    with pytest.raises(_guard.GameError, match="its dialogue computed for more than 0.3 s"):
        with _guard.game_code("spinner", "its dialogue", 0.3):
            while True:
                pass
    assert time.monotonic() - started < 30  # (a hang fails it; the cut comes at 0.3 s and one poll)
