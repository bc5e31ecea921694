"""The league's tables have a version of their own, beside the results
store's: a league file made before that opens and migrates, a fresh file and
a migrated one end with the same tables, a file from a newer arena is refused
in words and left as it was. Ratings read the store's matches through its
methods and get what the league's own SQL over them used to give. Real SQLite
files, and one real tournament."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from arena.league._db import LEAGUE_SCHEMA_VERSION, VERSION_KEY, League, LeagueDbError
from arena.league._ratings import Ratings
from arena.results._store import SCHEMA_VERSION, open_store

from ..conftest import PY, SAMPLE_BOTS, replay_key, run_arena

OLD_TOKEN = "arena_made-before-league-versions"

# A league file as the arena made it before the league versioned its tables:
# the results store at its schema 4, the league's tables with no version of
# their own, a user with a session, a bot with an active version, and one
# scheduled tournament with two played matches, a forfeit and a pending one.
BEFORE_VERSIONS = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '4');
CREATE TABLE bots (id INTEGER PRIMARY KEY, name TEXT NOT NULL, command TEXT NOT NULL, sha256 TEXT NOT NULL,
                   UNIQUE (command, sha256));
CREATE TABLE events (id INTEGER PRIMARY KEY, tournament INTEGER NOT NULL REFERENCES tournaments(id),
                     time REAL NOT NULL, text TEXT NOT NULL);
CREATE TABLE tournaments (id INTEGER PRIMARY KEY, game TEXT NOT NULL, game_version INTEGER NOT NULL,
    params TEXT NOT NULL, seed TEXT NOT NULL, rounds INTEGER NOT NULL, lifetime TEXT NOT NULL, bots TEXT NOT NULL,
    status TEXT NOT NULL, created REAL NOT NULL, finished REAL, settings TEXT, entrants TEXT);
CREATE TABLE matches (id INTEGER PRIMARY KEY, tournament INTEGER NOT NULL REFERENCES tournaments(id),
    round INTEGER NOT NULL, idx INTEGER NOT NULL, seats TEXT NOT NULL, seed TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'done', completed INTEGER, hands INTEGER, scores TEXT, payoffs TEXT, faults TEXT,
    timings TEXT, transcript TEXT, log_dir TEXT, finished REAL, UNIQUE (tournament, round, idx));

CREATE TABLE league_users (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, token_hash TEXT NOT NULL UNIQUE,
    admin INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL);
CREATE TABLE league_sessions (hash TEXT PRIMARY KEY, user INTEGER NOT NULL REFERENCES league_users(id),
    csrf TEXT NOT NULL, expires REAL NOT NULL);
CREATE TABLE league_bots (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL REFERENCES league_users(id),
    game TEXT NOT NULL, name TEXT NOT NULL, paused INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL,
    UNIQUE (game, name));
CREATE TABLE league_versions (id INTEGER PRIMARY KEY, bot INTEGER NOT NULL REFERENCES league_bots(id),
    number INTEGER NOT NULL, sha256 TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '', manifest TEXT NOT NULL, command TEXT, steps TEXT NOT NULL DEFAULT '[]',
    store_bot INTEGER, created REAL NOT NULL, updated REAL NOT NULL, UNIQUE (bot, number));
CREATE TABLE league_tournaments (tournament INTEGER PRIMARY KEY, kind TEXT NOT NULL, version INTEGER);

INSERT INTO bots VALUES (1, 'ann', '/srv/ann/run', 'aa'), (2, 'ben', '/srv/ben/run', 'bb'),
                        (3, 'cat', '/srv/cat/run', 'cc');
INSERT INTO tournaments VALUES (1, 'kuhn3', 2, '{{}}', 'root', 1, 'match', '[1, 2, 3]', 'finished', 10.0, 20.0, '{{}}',
    '[{{"name": "ann v1", "bot": 1}}, {{"name": "ben v1", "bot": 2}}, {{"name": "cat v1", "bot": 3}}]');
INSERT INTO matches VALUES
    (1, 1, 0, 0, '[0, 1, 2]', 's0', 'done', 1, 10, '[4.0, -1.0, -3.0]', '[4, -1, -3]', '[]', '{{}}', NULL, NULL, 11.0),
    (2, 1, 0, 1, '[2, 0, 1]', 's1', 'done', 0, 4, '[2.0, 0.0, -2.0]', '[2, 0, -2]',
     '[{{"seat": 0, "kind": "timeout", "detail": "no reply"}}]', '{{}}', NULL, NULL, 12.0),
    (3, 1, 0, 2, '[1, 2, 0]', 's2', 'forfeit', 0, 0, '[0, 0, 0]', '[0, 0, 0]', '[]', '{{}}', NULL, NULL, 13.0),
    (4, 1, 0, 3, '[1, 0, 2]', 's3', 'pending', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

INSERT INTO league_users VALUES (1, 'owner', '{hashlib.sha256(OLD_TOKEN.encode()).hexdigest()}', 1, 1.0);
INSERT INTO league_sessions VALUES ('cookiehash', 1, 'csrf', 4102444800.0);
INSERT INTO league_bots VALUES (1, 1, 'kuhn3', 'ann', 0, 1.0), (2, 1, 'kuhn3', 'ben', 0, 1.0),
                               (3, 1, 'kuhn3', 'cat', 1, 1.0);
INSERT INTO league_versions VALUES
    (1, 1, 1, 'x', 'file', 'active', '', '{{"run": "run"}}', '/srv/ann/run', '[]', 1, 1.0, 1.0),
    (2, 2, 1, 'y', 'file', 'active', '', '{{"run": "run"}}', '/srv/ben/run', '[]', 2, 1.0, 1.0),
    (3, 3, 1, 'z', 'file', 'retired', 'replaced', '{{"run": "run"}}', '/srv/cat/run', '[]', 3, 1.0, 1.0);
INSERT INTO league_tournaments VALUES (1, 'scheduled', NULL);
"""

LEAGUE_TABLES = ("league_users", "league_sessions", "league_bots", "league_versions", "league_tournaments")


def _file_before_versions(path):
    db = sqlite3.connect(path)
    db.executescript(BEFORE_VERSIONS)
    db.close()
    return path


def _shape(db: sqlite3.Connection) -> dict[str, tuple]:
    """The league's tables as SQLite sees them: columns, and indexes with their columns."""
    out = {}
    for table in LEAGUE_TABLES:
        columns = tuple(tuple(row) for row in db.execute(f"PRAGMA table_info({table})"))
        indexes = []
        for _, name, unique, origin, _ in db.execute(f"PRAGMA index_list({table})"):
            key = [r[2] for r in db.execute(f"PRAGMA index_info({name})")]
            indexes.append((name if origin == "c" else origin, unique, tuple(key)))
        out[table] = (columns, tuple(sorted(indexes)))
    return out


def _versions(path) -> tuple[str | None, str | None]:
    db = sqlite3.connect(path)
    try:
        rows = dict(db.execute("SELECT key, value FROM meta"))
    finally:
        db.close()
    return rows.get("schema_version"), rows.get(VERSION_KEY)


def test_a_league_file_made_before_league_versions_opens_and_migrates(tmp_path):
    path = _file_before_versions(tmp_path / "old.db")
    assert _versions(path) == ("4", None)
    store = open_store(path)
    try:
        league = League(store)
        # Its users, sessions, bots and versions are all there and work.
        assert league.user_by_token(OLD_TOKEN)["name"] == "owner"
        assert league.session("never issued") is None
        assert [v["label"] for v in league.pool("kuhn3")] == ["ann v1", "ben v1"]
        assert league.tournament_kinds() == {1: ("scheduled", None)}
        # Its ratings too: the two played matches, not the forfeit nor the pending one.
        table = {row["label"]: row for row in Ratings(league).table("kuhn3")}
        assert {label: row["matches"] for label, row in table.items()} == {"ann v1": 2, "ben v1": 2, "cat v1": 2}
        assert table["ann v1"]["faults"] == 0 and table["cat v1"]["faults"] == 1  # cat sat first in match 2
        assert store.db.execute("PRAGMA foreign_key_check").fetchall() == []
        assert store.db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        store.close()
    # Each owner's version, the current one: the store brought its tables from 4 to its own.
    assert _versions(path) == (str(SCHEMA_VERSION), str(LEAGUE_SCHEMA_VERSION))
    assert SCHEMA_VERSION > 4


def test_a_fresh_file_and_a_migrated_one_end_with_the_same_league_tables(tmp_path):
    migrated = _file_before_versions(tmp_path / "old.db")
    for path in (migrated, tmp_path / "fresh.db"):
        store = open_store(path)
        League(store)
        store.close()
    shapes = []
    for path in (migrated, tmp_path / "fresh.db"):
        db = sqlite3.connect(path)
        shapes.append(_shape(db))
        db.close()
    assert shapes[0] == shapes[1]
    # The latest step's indexes are there (a fresh file runs every step too).
    assert ("league_versions_store_bot", 0, ("store_bot",)) in shapes[1]["league_versions"][1]
    assert _versions(tmp_path / "fresh.db") == (str(SCHEMA_VERSION), str(LEAGUE_SCHEMA_VERSION))


def test_opening_an_up_to_date_league_file_writes_nothing(tmp_path):
    store = open_store(tmp_path / "l.db")
    League(store)
    statements: list[str] = []
    store.db.set_trace_callback(statements.append)
    League(store)
    store.db.set_trace_callback(None)
    store.close()
    assert statements and all(s.lstrip().upper().startswith("SELECT") for s in statements), statements


def test_a_file_from_a_newer_league_is_refused_in_words_and_left_as_it_was(tmp_path):
    path = _file_before_versions(tmp_path / "new.db")
    newer = LEAGUE_SCHEMA_VERSION + 1
    db = sqlite3.connect(path)
    db.execute("INSERT INTO meta VALUES (?, ?)", (VERSION_KEY, str(newer)))
    db.execute("CREATE TABLE league_future (x)")
    db.commit()
    db.close()
    store = open_store(path)
    try:
        with pytest.raises(LeagueDbError) as refused:
            League(store)
        assert str(refused.value) == (
            f"--db {path}: its league tables are at schema version {newer}, made by a newer arena; this arena reads "
            f"version {LEAGUE_SCHEMA_VERSION} and older. Serve it with that newer arena.")
        assert not store.db.in_transaction
    finally:
        store.close()
    db = sqlite3.connect(path)
    indexes = db.execute("SELECT name FROM sqlite_master WHERE type='index' AND name LIKE 'league%'").fetchall()
    assert indexes == [] and db.execute("SELECT * FROM league_future").fetchall() == []
    db.close()
    assert _versions(path) == (str(SCHEMA_VERSION), str(newer))  # the store's own tables were migrated

    # The same from the command line: a usage error, exit status 2, no traceback.
    proc = run_arena("users", "list", "--db", str(path))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("arena: error: ") and "made by a newer arena" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_league_version_that_is_not_a_number_is_refused(tmp_path):
    store = open_store(tmp_path / "odd.db")
    try:
        store.set_meta_value(VERSION_KEY, "two")
        with pytest.raises(LeagueDbError, match="'two', not a version number"):
            League(store)
    finally:
        store.close()


# -- ratings read through the store --------------------------------------------------

# What the league's ratings ran on the store's tables before the store gave
# them a method: kept here as the reference the method must agree with.
OLD_RATINGS_QUERY = (
    "SELECT m.id, m.tournament, m.seats, m.scores, m.faults, m.finished, t.entrants"
    " FROM matches m JOIN tournaments t ON t.id=m.tournament"
    " JOIN league_tournaments lt ON lt.tournament=t.id"
    " WHERE t.game=? AND m.status='done' AND (m.finished > ? OR (m.finished = ? AND m.id > ?))"
    " ORDER BY m.finished, m.id")


def _agree(league: League, game: str) -> int:
    """Check the store's method against the old query from every point a
    ratings update could start at; the number of matches compared."""
    old = league.db.execute(OLD_RATINGS_QUERY, (game, 0.0, 0.0, 0)).fetchall()
    points = [(0.0, 0)] + [(row[5], row[0]) for row in old]
    for finished, mid in points:
        want = [(r[0], r[1], json.loads(r[2]), json.loads(r[3]), json.loads(r[4] or "[]"), r[5], json.loads(r[6]))
                for r in league.db.execute(OLD_RATINGS_QUERY, (game, finished, finished, mid))]
        got = league.store.played_since(game, (finished, mid), tournaments=league.tournament_kinds())
        assert [(m["id"], m["tournament"], m["seats"], m["scores"], m["faults"], m["finished"], m["entrants"])
                for m in got] == want
    return len(old)


def test_ratings_read_through_the_store_get_what_the_old_query_got(tmp_path):
    """On a league file with a second league tournament finishing at the same
    instants as the first, and a tournament of the same game the league did
    not run (an `arena tournament` into the same file)."""
    store = open_store(_file_before_versions(tmp_path / "old.db"))
    try:
        league = League(store)
        entrants = [("ann v1", 1), ("ben v1", 2), ("cat v1", 3)]
        for kind in ("manual", None):
            tid = store.new_tournament("kuhn3", 2, {}, "root2", 1, "match", entrants)
            if kind:
                league.add_tournament(tid, kind)
            for idx, seats in enumerate(([0, 1, 2], [1, 2, 0])):
                mid = store.add_match(tid, {"round": 0, "idx": idx, "seats": seats, "seed": f"x{idx}",
                                            "completed": True, "hands": 3, "scores": [1.0, 0.0, -1.0],
                                            "payoffs": [1, 0, -1], "faults": [], "timings": {}})
                store.db.execute("UPDATE matches SET finished=? WHERE id=?", (11.0 + idx, mid))
        assert _agree(league, "kuhn3") == 4
        assert _agree(league, "holdem") == 0
    finally:
        store.close()


@pytest.mark.slow  # real bot processes
def test_ratings_of_a_real_tournament_read_through_the_store(tmp_path):
    """A tournament played by real bot processes into a file, taken into a
    league: the store's method gives what the old query gave, and every
    played match is rated."""
    path = tmp_path / "real.db"
    bots = [f"ann={SAMPLE_BOTS / 'build' / 'rule_bot'}", f"ben={PY} {SAMPLE_BOTS / 'random_bot.py'}",
            f"cat={PY} {SAMPLE_BOTS / 'check_fold_bot.py'}"]
    proc = run_arena("tournament", "kuhn3", *bots, "-p", "hands=20", "--rounds", "1", "--seed", replay_key("7"),
                     "--lifetime", "match", "--db", str(path), timeout=120)
    assert proc.returncode == 0, proc.stderr
    store = open_store(path)
    try:
        league = League(store)
        (t,) = store.tournaments()
        league.add_tournament(t["id"], "manual")
        league.add_user("owner")
        owner_id = league.users()[0]["id"]
        for entrant in t["entrants"]:
            vid = league.add_version(league.bot_for(owner_id, "kuhn3", entrant["name"]), "0" * 64, "file", {})
            league.set_state(vid, "active", store_bot=entrant["bot"])
        played = [m for m in store.matches(t["id"]) if m["status"] == "done"]
        assert played and _agree(league, "kuhn3") == len(played)
        table = Ratings(league).table("kuhn3")
        assert sorted(row["name"] for row in table) == ["ann", "ben", "cat"]
        assert sum(row["matches"] for row in table) == 3 * len(played)
    finally:
        store.close()


def test_the_docs_give_both_owners_versions():
    text = (Path(__file__).resolve().parents[2] / "docs" / "server.md").read_text()
    prose = " ".join(text.split())
    assert f"`schema_version` in `meta` (now {SCHEMA_VERSION})" in prose
    assert f"`league_schema_version` (now {LEAGUE_SCHEMA_VERSION})" in prose
