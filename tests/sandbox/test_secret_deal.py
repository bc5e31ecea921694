"""The deal is secret: no bot can work out cards it has not been shown.

Python's own generator (Mersenne Twister) is linear, and a von Neumann bot
that collected the cards it saw solved its state and knew every card to
come (tests/adversarial/mt19937.py is that attacker's tool). The arena draws
chance from a keyed SHAKE-256 stream and derives 128-bit match seeds with a
keyed hash (arena/_seeds.py); seeds are shown only once they give nothing
away.
"""

from __future__ import annotations

import json
import math
import random
import re
import sqlite3
import sys
from pathlib import Path

import pytest

from arena._checks import UsageError
from arena._seeds import ChanceStream, chance_stream, derive_seed, seed_text
from arena.results._store import SCHEMA_VERSION, open_store, shown_seed
from ..conftest import ROOT, run_arena, run_json

ADVERSARIAL = ROOT / "tests" / "adversarial"
sys.path.insert(0, str(ADVERSARIAL))
import mt19937  # noqa: E402  (the attacker's solver, also run by the bot below)


def test_the_attackers_solver_breaks_pythons_own_generator():
    """The tool is real: from 1,400 outputs of 24 bits it knows every later one."""
    rng = random.Random(20261126)
    seen = [rng.getrandbits(24) for _ in range(mt19937.ENOUGH)]
    words = mt19937.solve(seen)
    assert words is not None
    assert mt19937.predict(words, 500) == [rng.getrandbits(24) for _ in range(500)]


def test_the_same_solver_learns_nothing_from_the_arenas_chance():
    stream = chance_stream("20261126")
    seen = [stream.getrandbits(24) for _ in range(mt19937.ENOUGH)]
    words = mt19937.solve(seen)
    assert words is not None
    upcoming = [stream.getrandbits(24) for _ in range(500)]
    assert sum(a == b for a, b in zip(mt19937.predict(words, 500), upcoming)) == 0


@pytest.mark.slow
def test_a_generator_solver_over_a_long_vonneumann_match_predicts_no_card(tmp_path):
    """The attack as a bot plays it: every game ends in a showdown, so it sees
    both cards of 700 games (1,400 outputs), solves, and predicts the other
    600 cards before they are dealt. On Python's generator: 599 of 599 right."""
    bot = ADVERSARIAL / "mt_vonneumann_bot.py"
    proc, result = run_json(
        "vonneumann", f"python3 {bot} watch", f"python3 {bot} feed",
        "--stack", "1000000", "--games-per-session", "100", "--sessions", "10",
        "--timeout", "60", "--seed", "5", "--log-dir", str(tmp_path / "logs"), timeout=300,
    )
    assert result["completed"], proc.stderr
    report = (tmp_path / "logs" / "seat0.stderr.log").read_text()
    found = re.search(r"SEEN (\d+) PREDICTED (\d+) HIT (\d+)", report)
    assert found, report
    seen, predicted, hits = map(int, found.groups())
    assert seen >= mt19937.ENOUGH and predicted >= 500, report
    # Each prediction of a 24-bit card is right by chance once in 16.7 million.
    assert hits == 0, f"the attacker predicted {hits} of {predicted} cards"


SEARCH = re.compile(r"SEEDSEARCH tried=(\d+) found=(\S+) predicted=(\d+) correct=(\d+)")


def _named_no_card(report: re.Match) -> bool:
    """The search found nothing; or, by chance, a seed that deals the same 12 cards it saw
    (some 20,000 tries at 4^-12 each: about one run in a thousand) and named cards with
    it no better than guessing. A seed that keys the deal names every card (288 of 288);
    guessing names a card right one time in four, and 1e-9 is the tail allowed."""
    found, predicted, correct = report[2], int(report[3]), int(report[4])
    if found == "-":
        return predicted == correct == 0
    tail = sum(math.comb(predicted, k) * 0.25 ** k * 0.75 ** (predicted - k) for k in range(correct, predicted + 1))
    return predicted > 0 and tail > 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("seed", ["4711", "league-week-3"])
def test_a_bot_that_searches_typed_seeds_predicts_no_card(seed, tmp_path):
    """It sees 12 of its cards, tries every seed a person is likely to type
    (tests/adversarial/seed_search_kuhn3.py), then names its card before each
    hand. A seed alone used to key the match: it found 4711 and league-week-3
    and named 288 of 288 cards. The run's secret keys it too: no card named
    better than by guessing (``_named_no_card``)."""
    # every number up to 4,800 (4711 among them) and the words with a number
    bot = f"python3 {ADVERSARIAL / 'seed_search_kuhn3.py'} 4800"
    rule = str(ROOT / "sample_bots/kuhn3/build/rule_bot")
    proc, result = run_json("kuhn3", bot, rule, rule, "--hands", "60", "--seed", seed, "--timeout", "120",
                            "--log-dir", str(tmp_path), timeout=300)
    assert result["completed"], proc.stderr
    found = SEARCH.search((tmp_path / "seat0.stderr.log").read_text())
    assert found and int(found[1]) > 10_000, found  # it searched
    assert _named_no_card(found), found[0]


@pytest.mark.slow
def test_a_bot_that_searches_a_tournaments_typed_seed_predicts_no_card(tmp_path):
    """The same search through a tournament's match seeds (keyed hashes of its
    seed, whose algorithm is public): it found --seed 9 in every match."""
    bot = f"search=python3 {ADVERSARIAL / 'seed_search_kuhn3.py'} 100"
    rule = str(ROOT / "sample_bots/kuhn3/build/rule_bot")
    db = tmp_path / "t.db"
    proc = run_arena("tournament", "kuhn3", bot, f"a={rule}", f"b={rule}", "-p", "hands=30", "--seed", "9",
                     "--timeout", "120", "--jobs", "2", "--db", str(db), timeout=300)
    assert proc.returncode == 0, proc.stderr
    reports = [SEARCH.search(p.read_text()) for p in (tmp_path / "t-data").rglob("*.log")]
    reports = [r for r in reports if r]
    assert len(reports) == 6, reports  # one per match: every seating of three entrants
    assert all(_named_no_card(r) for r in reports), [r[0] for r in reports]


def test_chance_is_the_same_for_the_same_seed_on_every_machine():
    """Stored seeds must replay for ever: the stream's first draws are fixed here."""
    assert [chance_stream(7).randrange(52) for _ in range(8)] == [chance_stream("7").randrange(52) for _ in range(8)]
    assert chance_stream(7).getrandbits(64) == 0xCEDE9269BC4E3AEC
    assert derive_seed(7, "kuhn3", "match", 0) == "b4d5e26117574e4306ac6c78bfb97d5f"
    s = chance_stream(7)
    s.getrandbits(5000 * 8)  # across a block boundary
    state = s.getstate()
    after = [s.random() for _ in range(100)]
    s.setstate(state)
    assert [s.random() for _ in range(100)] == after


def test_match_seeds_are_keyed_128_bit_values():
    seeds = {derive_seed(root, "round", 0, "match", i) for root in (1, 2) for i in range(50)}
    assert len(seeds) == 100
    assert all(re.fullmatch(r"[0-9a-f]{32}", s) for s in seeds)
    # Keyed by the root: the same position under another root shares nothing.
    assert derive_seed("1", "x") != derive_seed("2", "x")


def test_a_chance_stream_is_a_random_Random_for_games():
    rng = chance_stream("abc")
    assert isinstance(rng, random.Random) and isinstance(rng, ChanceStream)
    deck = list(range(52))
    rng.shuffle(deck)
    assert sorted(deck) == list(range(52)) and deck != list(range(52))
    counts = [0] * 4
    for _ in range(40_000):
        counts[rng.randrange(4)] += 1
    assert all(9_400 < c < 10_600 for c in counts), counts  # about 7 sigma either way


def test_a_chance_streams_sample_draws_what_random_Randoms_would():
    """ChanceStream.sample draws a deal inline; it must be the base class's
    draws exactly (the same seed deals the same cards as before), the stream
    left in the same place: populations on both sides of its inline limits,
    every k, and draws across the keystream's block boundaries."""
    rng = random.Random(30)
    for seed in range(40):
        ours, theirs = chance_stream(seed), chance_stream(seed)
        for j in range(150):
            n = rng.choice((1, 2, 5, 21, 22, 52, 85, 86, 255, 256, 1000))
            k = rng.randint(0, min(n, 60))
            population = tuple(range(n)) if j % 3 else list(range(100, 100 + n))
            assert ours.sample(population, k) == random.Random.sample(theirs, population, k), (seed, j, n, k)
            assert ours.getstate() == theirs.getstate()
    assert ours.sample(range(52), 3, counts=[2] * 52) == random.Random.sample(theirs, range(52), 3, counts=[2] * 52)
    with pytest.raises(ValueError):
        ours.sample((1, 2), 3)


@pytest.mark.parametrize("bad", [-1, "", "two words", "x" * 65, "-5", "a/b"])
def test_a_bad_seed_is_refused_in_words(bad):
    with pytest.raises(UsageError, match="--seed"):
        seed_text(bad)


def test_a_bad_seed_on_the_command_line_is_a_usage_error():
    proc = run_arena("kuhn3", "a", "b", "c", "--seed", "no spaces please")
    assert proc.returncode == 2
    assert "--seed" in proc.stderr and "'no spaces please'" in proc.stderr


def test_a_word_seeds_printed_key_replays_the_same_match():
    bots = [str(ROOT / "sample_bots/kuhn3/build/rule_bot")] * 2 + [f"python3 {ROOT}/sample_bots/kuhn3/check_fold_bot.py"]
    one = run_json("kuhn3", *bots, "--hands", "40", "--seed", "league-week-3")[1]
    assert re.fullmatch(r"league-week-3:[0-9a-f]{32}", one["seed"])
    two = run_json("kuhn3", *bots, "--hands", "40", "--seed", one["seed"])[1]
    assert two["seed"] == one["seed"]
    assert [s["payoff"] for s in one["seats"]] == [s["payoff"] for s in two["seats"]]


# The schema-3 tables as they were (integer seeds).
SCHEMA_3 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bots (id INTEGER PRIMARY KEY, name TEXT NOT NULL, command TEXT NOT NULL, sha256 TEXT NOT NULL,
    UNIQUE (command, sha256));
CREATE TABLE tournaments (id INTEGER PRIMARY KEY, game TEXT NOT NULL, game_version INTEGER NOT NULL,
    params TEXT NOT NULL, seed INTEGER NOT NULL, rounds INTEGER NOT NULL, lifetime TEXT NOT NULL,
    bots TEXT NOT NULL, status TEXT NOT NULL, created REAL NOT NULL, finished REAL, settings TEXT, entrants TEXT);
CREATE TABLE events (id INTEGER PRIMARY KEY, tournament INTEGER NOT NULL REFERENCES tournaments(id),
    time REAL NOT NULL, text TEXT NOT NULL);
CREATE TABLE matches (id INTEGER PRIMARY KEY, tournament INTEGER NOT NULL REFERENCES tournaments(id),
    round INTEGER NOT NULL, idx INTEGER NOT NULL, seats TEXT NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'done', completed INTEGER, hands INTEGER, scores TEXT, payoffs TEXT,
    faults TEXT, timings TEXT, transcript TEXT, log_dir TEXT, finished REAL, UNIQUE (tournament, round, idx));
INSERT INTO meta VALUES ('schema_version', '3');
INSERT INTO bots VALUES (1, 'a', './a', 'x');
INSERT INTO tournaments VALUES (1, 'kuhn3', 1, '{}', 12345, 1, 'match', '[1]', 'finished', 0, 1, '{}',
    '[{"name": "a", "bot": 1}]');
INSERT INTO events VALUES (1, 1, 0, 'kept');
INSERT INTO matches (id, tournament, round, idx, seats, seed, status, completed, hands, scores, payoffs, faults,
    timings, finished) VALUES (7, 1, 0, 0, '[0, 0, 0]', 4000000000, 'done', 1, 5, '[1,2,3]', '[1,2,3]', '[]', '{}', 1);
"""


def test_an_older_database_keeps_its_results_and_takes_128_bit_seeds(tmp_path):
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as con:
        con.executescript(SCHEMA_3)
    store = open_store(db, create=False)
    try:
        assert store.tournament(1)["seed"] == "12345"
        (m,) = store.matches(1)
        assert (m["id"], m["seed"], m["scores"]) == (7, "4000000000", [1, 2, 3])
        assert store.events(1) == ["kept"]
        # A 32-digit seed of digits only would become a float in an integer column.
        big = "01234567890123456789012345678901"
        tid = store.new_tournament("kuhn3", 2, {}, big, 1, "match", [("a", 1)])
        assert store.tournament(tid)["seed"] == big
        assert store.db.execute("PRAGMA foreign_key_check").fetchall() == []
        assert store.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == str(
            SCHEMA_VERSION)
    finally:
        store.close()


def test_seeds_are_shown_only_once_they_give_nothing_away():
    assert shown_seed({"seed": "s", "status": "running"}) is None
    assert shown_seed({"seed": "s", "status": "finished"}) == "s"
    assert shown_seed({"seed": "m", "round": 0, "status": "pending"}) is None
    assert shown_seed({"seed": "m", "round": 0, "status": "done"}) == "m"


@pytest.mark.slow
def test_a_tournament_tells_its_seed_when_it_has_finished_and_hides_pending_ones(tmp_path):
    db = tmp_path / "t.db"
    rule = str(ROOT / "sample_bots/kuhn3/build/rule_bot")
    proc = run_arena("tournament", "kuhn3", f"a={rule}", f"b={rule}", f"c={rule}", "-p", "hands=5",
                     "--db", str(db), "--seed", "s3cret", timeout=120)
    assert proc.returncode == 0, proc.stderr
    started = next(line for line in proc.stderr.splitlines() if line.startswith("Started tournament"))
    assert "s3cret" not in started
    finished = next(line for line in proc.stderr.splitlines() if line.startswith("Finished tournament"))
    assert re.search(r"seed s3cret:[0-9a-f]{32}$", finished), finished
    # A match not yet played keeps its seed to itself in every listing.
    store = open_store(db, create=False)
    try:
        store.db.execute("UPDATE matches SET status='pending' WHERE id=1")
        store.db.execute("UPDATE tournaments SET status='running'")
    finally:
        store.close()
    export = run_arena("export", "1", "--db", str(db))
    rows = [json.loads(line) for line in export.stdout.splitlines()]
    assert [r["match"] for r in rows] == list(range(2, 7)) and all(r["seed"] and r["replay"] for r in rows)
    listed = run_arena("matches", "1", "--db", str(db))
    assert "seed (shown once played)" in listed.stdout, listed.stdout + listed.stderr
