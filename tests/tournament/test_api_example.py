"""The tournament section of docs/api.md: its example is run as the page
shows it (so it cannot rot), and agrees with ``arena tournament`` on the
same seed; the config the API plans is the one stored and resumed; the two
records a worker reads and writes survive their JSON."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess

import pytest
import trio

import arena
from arena._checks import UsageError
from arena.play._jobs import JobBot, MatchJob, MatchRecord
from arena.tournament._config import TournamentConfig

from ..conftest import PY, ROOT, SAMPLE_BOTS, clean_env, replay_key

PAGE = ROOT / "docs" / "api.md"
FILE = "tournament_example.py"
_FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.S | re.M)


def example() -> tuple[str, list[str]]:
    """The page's ``python file=tournament_example.py`` block, and the lines of the
    ``text`` block after it (what it prints; ``...`` stands for any text)."""
    blocks = [(info.strip(), body) for info, body in _FENCE.findall(PAGE.read_text())]
    [at] = [i for i, (info, _) in enumerate(blocks) if info == f"python file={FILE}"]
    shown = next(body for info, body in blocks[at + 1:] if info == "text")
    return blocks[at][1], [line for line in shown.splitlines() if line and line != "..."]


def _env() -> dict[str, str]:
    env = clean_env()
    env.pop("ARENA_SANDBOX", None)  # the example runs at this machine's default level, as a user's would
    env["PATH"] = f"{PY.rsplit('/', 1)[0]}:{env.get('PATH', '/usr/bin:/bin')}"
    return env


@pytest.mark.slow
def test_the_tournament_example_of_the_api_page_runs_and_agrees_with_the_command(tmp_path):
    code, shown = example()
    (tmp_path / "sample_bots").symlink_to(ROOT / "sample_bots")
    (tmp_path / FILE).write_text(code)
    proc = subprocess.run([PY, FILE], cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    printed = proc.stdout.splitlines()
    at = 0
    for line in shown:
        pattern = re.compile(".*".join(re.escape(part) for part in line.split("...")))
        hit = next((i for i in range(at, len(printed)) if pattern.fullmatch(printed[i])), None)
        assert hit is not None, f"the example did not print {line!r}; it printed:\n{proc.stdout}"
        at = hit + 1
    assert len(printed) == 1 + 3  # the tournament, then each entrant

    # The same tournament through the command: the same matches and standings.
    cli = subprocess.run(
        [PY, "-m", "arena", "tournament", "kuhn3", f"rule={SAMPLE_BOTS / 'build' / 'rule_bot'}",
         f"random-1=python3 {SAMPLE_BOTS / 'random_bot.py'} --seed 1",
         f"random-2=python3 {SAMPLE_BOTS / 'random_bot.py'} --seed 2",
         "-p", "hands=50", "--seed", replay_key("1"), "--db", str(tmp_path / "cli.db"), "--json"],
        cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=300)
    assert cli.returncode == 0, cli.stderr
    by_command = json.loads(cli.stdout)
    store = arena.open_store(tmp_path / "tournament.db", create=False)
    try:
        [saved] = store.tournaments()
        table = arena.standings_of(store, saved["id"])
        matches = store.matches(saved["id"])
    finally:
        store.close()
    assert saved["status"] == "finished" and saved["seed"] == replay_key("1")
    assert [(r["bot"], r["score"]) for r in table["standings"]] == \
        [(r["bot"], r["score"]) for r in by_command["standings"]]
    assert [(m["seats"], m["scores"]) for m in matches] == \
        [([["rule", "random-1", "random-2"].index(e) for e in m["entrants"]], m["scores"])
         for m in by_command["match_list"]]
    # No level given anywhere: both ran at this machine's default, and recorded it.
    assert {m["timings"]["sandbox"]["level"] for m in matches} == {by_command["sandbox"]}
    assert f"sandbox {by_command['sandbox']}" in printed[0]


def _plan(tmp_path, **options):
    bots = [arena.BotSpec.parse(str(SAMPLE_BOTS / "build" / "rule_bot"), name="rule"),
            arena.BotSpec.parse(f"python3 {SAMPLE_BOTS / 'random_bot.py'} --seed 1", name="random"),
            arena.BotSpec.parse(str(SAMPLE_BOTS / "check_fold_bot.py"), name="check-fold")]
    return arena.plan_tournament("kuhn3", bots, **options)


def test_the_planned_config_is_the_one_stored_and_resumed(tmp_path):
    config = _plan(tmp_path, params={"hands": 30}, seed="word", rounds=4, sandbox="none", timeout=2.5,
                   budget=9.0, memory_mb=256, on_fault="score-so-far", max_faults=2, broken_start=0,
                   gauntlet="random", until_ci=3.0, jobs=2)
    assert config.gauntlet == 1 and config.broken_start is None and config.policy.memory_mb == 256
    store = arena.open_store(tmp_path / "t.db")
    try:
        tid = arena.create_tournament(store, config)
    finally:
        store.close()  # and with it the lock a run holds
    store = arena.open_store(tmp_path / "t.db", create=False)
    try:
        loaded, plugin = arena.load_tournament(store, tid, jobs=2)
        settings = store.tournament(tid)["settings"]
    finally:
        store.close()
    assert loaded == config
    assert plugin.spec.id == "kuhn3"
    # What the pages and reports read: the gauntlet by name, the version of the shape.
    assert settings["gauntlet"] == "random" and settings["version"] == 2 and settings["until_ci"] == 3.0
    with sqlite3.connect(tmp_path / "t.db") as db:
        row = db.execute("SELECT game, params, seed, rounds, lifetime FROM tournaments").fetchone()
    assert row == ("kuhn3", json.dumps(config.params), config.seed, 4, "match")
    assert re.fullmatch(r"word:[0-9a-f]{32}", config.seed)  # the typed seed and this run's secret


def test_options_stored_before_the_version_are_read_the_same_and_newer_ones_refused(tmp_path):
    config = _plan(tmp_path, params={"hands": 30}, seed=5, sandbox="none", duplicate=True, gauntlet="rule")
    saved = config.to_dict()
    older = {k: v for k, v in saved.items() if k != "version"}
    assert TournamentConfig.from_dict(older, config.bots) == config
    with pytest.raises(UsageError, match="newer arena"):
        TournamentConfig.from_dict({**saved, "version": saved["version"] + 1}, config.bots)


def test_bad_options_are_refused_by_name_before_anything_is_stored(tmp_path):
    for options, word in (({"rounds": 0}, "--rounds"), ({"on_fault": "pay"}, "--on-fault"),
                          ({"gauntlet": "nobody"}, "--gauntlet"), ({"params": {"hands": -1}}, "hands")):
        with pytest.raises(UsageError, match=word):
            _plan(tmp_path, sandbox="none", **options)
    with pytest.raises(TypeError):
        arena.plan_tournament("kuhn3", [], 1)  # every option is keyword-only


def test_a_match_job_and_record_survive_their_json():
    job = MatchJob(key=(2, 7), label="r2-m7", game="kuhn3", params={"hands": 3}, seed="abc",
                   bots=(JobBot("a", "./a"), JobBot("b", "python3 b.py")), timeout=0.5, startup_timeout=4.0,
                   budget=None, transcript="/t/r2-m7.log.gz", log_dir="/t/logs/r2-m7",
                   sandbox={"level": "basic", "policy": {"memory_mb": 100}})
    assert MatchJob.from_json(json.loads(json.dumps(job.to_json()))) == job
    # A job as a client of the worker writes it by hand: the defaults fill in, the label from the key.
    bare = MatchJob.from_json({"key": [0, 3], "game": "kuhn3", "params": {}, "seed": 5,
                               "bots": [{"name": "x", "command": "./x"}], "timeout": 2.0})
    assert (bare.label, bare.startup_timeout, bare.sandbox, bare.transcript) == ("r0-m3", 10.0, {}, None)
    record = MatchRecord(key=(2, 7), completed=False, hands=1,
                         faults=[{"seat": 1, "kind": "timeout", "detail": "slow"}], payoffs=[1, -1],
                         time_used=[0.1, 0.5], tournament_scores=[1.0, -1.0], forfeit_scores=[2.0, -2.0],
                         duration=0.7, exchanges=9, sandbox={"level": "none"}, transcript="/t/x.log.gz",
                         log_dir="/t/logs", worker="w1")
    line = json.dumps(record.to_json())
    assert MatchRecord.from_json(json.loads(line)) == record
    assert json.loads(line)["result"]["hands"] == 1  # the worker's answer line keeps its shape


VN = ROOT / "sample_bots" / "vonneumann" / "build"


def _vonneumann(tmp_path, name: str, **options) -> tuple[list[tuple], list[tuple]]:
    """A vonneumann tournament with a bot that breaks the protocol (disqualified at
    its first fault), through the API: its stored matches and its standings."""
    bots = [arena.BotSpec.parse(str(VN / "naive"), name="naive"),
            arena.BotSpec.parse(str(VN / "kuhn3"), name="kuhn3"),
            arena.BotSpec.parse(f"{PY} {ROOT / 'tests' / 'bots' / 'misbehave_vonneumann.py'} garbage", name="bad")]
    config = arena.plan_tournament("vonneumann", bots, params={"games_per_session": 5, "sessions": 2}, seed=replay_key(11),
                                   rounds=2, sandbox="none", max_faults=1, **options)
    store = arena.open_store(tmp_path / f"{name}.db")
    try:
        tid = arena.create_tournament(store, config)
        outcome = trio.run(arena.run_tournament, arena.load_game("vonneumann"), config, store, tid)
        assert outcome.finished
        matches = [(m["round"], m["idx"], m["seats"], m["seed"], m["status"], m["scores"],
                    [f["kind"] for f in m["faults"]]) for m in store.matches(tid)]
        standings = [(r["bot"], r["score"], r["disqualified"]) for r in arena.standings_of(store, tid)["standings"]]
    finally:
        store.close()
    return matches, standings


@pytest.mark.slow
def test_every_back_end_plays_the_same_matches_and_standings_with_the_same_seed(tmp_path):
    one_job = _vonneumann(tmp_path, "jobs1", lifetime="match", jobs=1)
    matches, standings = one_job
    assert any(status == "forfeit" for *_, status, _, _ in matches)  # the disqualified bot's later matches
    assert standings[-1] == ("bad", standings[-1][1], True)
    # A kept pool of processes plays the matches one at a time too: the very same rows.
    assert _vonneumann(tmp_path, "pool", lifetime="tournament") == one_job
    # Two at once may learn of the disqualification a match later: the standings judge in schedule order.
    assert _vonneumann(tmp_path, "jobs2", lifetime="match", jobs=2)[1] == standings


@pytest.mark.slow
def test_a_config_built_by_hand_without_a_level_runs_at_the_machines_default(tmp_path):
    """Not level none: the level ``open_host()`` picks here, decided once and recorded."""
    bots = [arena.BotSpec.parse(str(SAMPLE_BOTS / "build" / "rule_bot"), name=name) for name in ("a", "b", "c")]
    config = arena.TournamentConfig(game="kuhn3", params={"hands": 5}, bots=bots, seed="3", jobs=2)
    with arena.open_host() as host:
        default = host.summary()["level"]
    store = arena.open_store(tmp_path / "t.db")
    try:
        tid = arena.create_tournament(store, config)
        assert trio.run(arena.run_tournament, arena.load_game("kuhn3"), config, store, tid).finished
        levels = {m["timings"]["sandbox"]["level"] for m in store.matches(tid)}
    finally:
        store.close()
    assert config.sandbox == default and levels == {default}
