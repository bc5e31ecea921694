"""The results store owns its tables: nothing outside arena/results/ runs SQL
on them, others read them through the store's methods, another owner's key
in ``meta`` cannot clash with the store's own version, and storing a match
costs the same however many matches its tournament already has. Real SQLite
files throughout."""

from __future__ import annotations

import re
import sqlite3
from collections import namedtuple
from pathlib import Path

import pytest

from arena.results._store import SCHEMA_VERSION, open_store

ARENA = Path(__file__).resolve().parents[2] / "arena"
STORE_TABLES = ("meta", "bots", "events", "tournaments", "matches")

Slot = namedtuple("Slot", "round idx seats seed")


def _record(rnd: int, idx: int, scores=(1.0, -1.0), faults=()) -> dict:
    return {"round": rnd, "idx": idx, "seats": [0, 1], "seed": f"s{rnd}-{idx}", "completed": not faults,
            "hands": 3, "scores": list(scores), "payoffs": list(scores), "timings": {"duration": 0.1},
            "faults": [{"seat": s, "kind": "crash", "detail": "exited 1"} for s in faults]}


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "r.db")
    yield s
    s.close()


def _tournament(store, game: str = "kuhn3", entrants=("ann", "ben")) -> int:
    ids = [(name, store.bot_id(name, f"./{name}", [f"./{name}"])) for name in entrants]
    return store.new_tournament(game, 1, {}, "seed", 1, "match", ids)


# -- one owner ------------------------------------------------------------------------


def test_no_sql_on_the_stores_tables_outside_arena_results():
    """Every module outside arena/results/ that names one of the store's tables
    in a FROM, JOIN, INTO or UPDATE is a second owner; there must be none."""
    table = "|".join(STORE_TABLES)
    pattern = re.compile(rf"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:{table})\b", re.IGNORECASE)
    offenders = []
    for path in sorted(ARENA.rglob("*.py")):
        if path.is_relative_to(ARENA / "results"):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{path.relative_to(ARENA.parent)}:{n}: {line.strip()}")
    assert offenders == []


def test_another_owner_keeps_its_own_key_in_meta_and_cannot_take_the_stores(store, tmp_path):
    assert store.meta_value("league_schema_version") is None
    store.set_meta_value("league_schema_version", "7")
    store.set_meta_value("league_schema_version", "8")  # a second write replaces the first
    assert store.meta_value("league_schema_version") == "8"
    with pytest.raises(ValueError, match="results store's own"):
        store.set_meta_value("schema_version", "99")
    with pytest.raises(ValueError, match="results store's own"):
        store.meta_value("schema_version")
    store.close()
    reopened = open_store(tmp_path / "r.db")  # the store's own version is untouched
    try:
        assert reopened.meta_value("league_schema_version") == "8"
        row = reopened.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        assert row == (str(SCHEMA_VERSION),)
    finally:
        reopened.close()


def test_match_counts_count_scheduled_and_stored(store):
    tid = _tournament(store)
    assert store.match_counts(tid) == (0, 0)
    store.schedule(tid, [Slot(0, i, (0, 1), f"s{i}") for i in range(5)])
    store.add_match(tid, _record(0, 1))
    store.add_match(tid, {**_record(0, 3), "status": "forfeit"})
    assert store.match_counts(tid) == (5, 2)
    assert store.match_counts(tid + 1) == (0, 0)


def test_played_since_is_every_played_match_of_a_game_in_finishing_order(store):
    first, other_game, second = _tournament(store), _tournament(store, "holdem"), _tournament(store)
    for tid in (first, other_game, second):
        store.schedule(tid, [Slot(0, i, (0, 1), f"s{i}") for i in range(3)])
    faulted_id = store.add_match(second, _record(0, 0, (2.0, -2.0), faults=[1]))
    store.add_match(other_game, _record(0, 0))
    plain_id = store.add_match(first, _record(0, 2))
    store.add_match(first, {**_record(0, 0), "status": "forfeit"})  # not played: left out
    # Both finished at the same instant: the id breaks the tie.
    store.db.execute("UPDATE matches SET finished=100.0 WHERE id IN (?, ?)", (faulted_id, plain_id))

    got = store.played_since("kuhn3")
    assert [m["id"] for m in got] == sorted([faulted_id, plain_id])
    faulted = next(m for m in got if m["id"] == faulted_id)
    assert faulted["tournament"] == second and faulted["seats"] == [0, 1] and faulted["scores"] == [2.0, -2.0]
    assert [f["seat"] for f in faulted["faults"]] == [1] and faulted["finished"] == 100.0
    assert [e["name"] for e in faulted["entrants"]] == ["ann", "ben"]

    # After a point: only what came later; of some tournaments only, if asked.
    last = got[-1]
    assert store.played_since("kuhn3", (last["finished"], last["id"])) == []
    later_id = store.add_match(second, _record(0, 2))
    assert [m["id"] for m in store.played_since("kuhn3", (last["finished"], last["id"]))] == [later_id]
    assert [m["id"] for m in store.played_since("kuhn3", tournaments={first})] == [plain_id]
    assert [m["tournament"] for m in store.played_since("holdem")] == [other_game]


# -- the cost of storing a match -------------------------------------------------------


class Meter:
    """What SQLite did on one connection: the statements run and the virtual
    machine's instructions executed (a row read or written costs instructions;
    a count, not a time)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> "Meter":
        self.statements: list[str] = []
        self.steps = 0
        self.db.set_trace_callback(self.statements.append)
        self.db.set_progress_handler(self._step, 1)
        return self

    def _step(self) -> int:
        self.steps += 1
        return 0  # go on

    def __exit__(self, *exc) -> None:
        self.db.set_trace_callback(None)
        self.db.set_progress_handler(None, 1)


def _cost(store, tid: int, rnd: int, idx: int) -> tuple[list[str], int]:
    with Meter(store.db) as meter:
        store.add_match(tid, _record(rnd, idx))
    # The trace shows the values bound; compare the statements' shapes.
    return [re.sub(r"'[^']*'|-?\b\d+(?:\.\d+)?\b", "?", s) for s in meter.statements], meter.steps


@pytest.mark.parametrize("scheduled", [True, False], ids=["scheduled", "not-scheduled"])
def test_storing_a_match_costs_the_same_in_a_tournament_of_ten_as_of_six_hundred(store, scheduled):
    """The same statements and the same number of SQLite instructions to store
    the next match of a tournament of 11 matches (10 stored) and of one of 601
    (600 stored). Re-reading a tournament's match ids on each insert costs
    instructions for every row the tournament has."""
    costs = []
    for size in (11, 601):
        tid = _tournament(store)
        if scheduled:
            store.schedule(tid, [Slot(0, i, (0, 1), f"s0-{i}") for i in range(size)])
        for i in range(size - 1):
            store.add_match(tid, _record(0, i))
        costs.append(_cost(store, tid, 0, size - 1))
        # The id it returned is the stored one.
        assert store.match(store.match_ids(tid)[(0, size - 1)])["idx"] == size - 1
        assert store.match_counts(tid) == (size, size)
    (small, small_steps), (big, big_steps) = costs
    assert big == small and len(small) <= 2, (small, big)
    assert big_steps == small_steps, f"{small_steps} SQLite instructions for the 11th match, {big_steps} for the 601st"


def test_a_schema_4_database_keeps_its_matches_and_learns_who_played_them(tmp_path):
    # A database as schema 4 left it: a cluster match (its worker only in its timings) and a local one.
    db = tmp_path / "v4.db"
    s = open_store(db)
    tid = _tournament(s)
    s.add_match(tid, {**_record(0, 0), "timings": {"duration": 0.1, "worker": "B"}})
    s.add_match(tid, _record(0, 1))
    s.close()
    with sqlite3.connect(db) as con:
        con.execute("ALTER TABLE matches DROP COLUMN worker")
        con.execute("ALTER TABLE matches DROP COLUMN build")
        con.execute("UPDATE meta SET value='4' WHERE key='schema_version'")
    s = open_store(db, create=False)
    try:
        old = s.matches(tid)
        assert [(m["idx"], m["worker"], m["build"], m["scores"]) for m in old] == [
            (0, "B", None, [1.0, -1.0]), (1, None, None, [1.0, -1.0])]
        assert s.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
        # A match stored now records both.
        s.add_match(tid, {**_record(0, 2), "worker": "A", "build": "0.1.0+abc"})
        assert (s.matches(tid)[2]["worker"], s.matches(tid)[2]["build"]) == ("A", "0.1.0+abc")
    finally:
        s.close()
