"""Durable results: one SQLite file (WAL) per set of tournaments.

A tournament's whole schedule is written when it starts (one ``pending`` row
per match, so every match has its id before it is played, and progress lines
can name it); each match is then written, in its own transaction, the moment
it finishes, so a tournament killed at any point loses at most the matches
that were running.

The file, its WAL and its data folder (transcripts, stderr logs) are private
to the arena's user (0600 / 0700): bots never see them, and other users of
the machine need not. A tournament being played holds a lock, so that a
second ``--resume`` of it is refused rather than run twice.

Entrants are not bots: the same bot (command and files) may enter a
tournament twice under two names, and each entrant has its own matches,
processes and rating. ``matches.seats`` lists entrant indices.

This module owns its tables (``meta``, ``bots``, ``events``, ``tournaments``,
``matches``): no SQL elsewhere touches them. Others sharing the file (the
league) read them through the methods below and keep their own schema
version under a key of their own in ``meta`` (``meta_value``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Container, Iterator
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from .._checks import UsageError

SCHEMA_VERSION = 5

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    command TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    UNIQUE (command, sha256)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    tournament INTEGER NOT NULL REFERENCES tournaments(id),
    time REAL NOT NULL,
    text TEXT NOT NULL             -- what an organiser accepted, e.g. a changed bot
);
"""

_TOURNAMENTS = """
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    game_version INTEGER NOT NULL,
    params TEXT NOT NULL,          -- JSON
    seed TEXT NOT NULL,            -- the root seed (arena._seeds: a printable token)
    rounds INTEGER NOT NULL,
    lifetime TEXT NOT NULL,
    bots TEXT NOT NULL,            -- JSON list of bot ids, one per entrant, in entry order
    status TEXT NOT NULL,          -- running | finished
    created REAL NOT NULL,
    finished REAL,
    settings TEXT,                 -- JSON: every option a resume must restore
    entrants TEXT                  -- JSON list of {"name", "bot"}, in entry order
);
"""

_MATCHES = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    tournament INTEGER NOT NULL REFERENCES tournaments(id),
    round INTEGER NOT NULL,
    idx INTEGER NOT NULL,          -- position in the round's schedule
    seats TEXT NOT NULL,           -- JSON list of entrant indices, in seat order
    seed TEXT NOT NULL,            -- derived from the tournament's seed and the position
    status TEXT NOT NULL DEFAULT 'done',  -- pending | done | forfeit (not played: a disqualified entrant)
    completed INTEGER,
    hands INTEGER,
    scores TEXT,                   -- JSON list, seat order: the tournament's scores (fault rule applied)
    payoffs TEXT,                  -- JSON list, seat order: the game's own payoffs
    faults TEXT,                   -- JSON list of fault objects
    timings TEXT,                  -- JSON: duration, exchanges, time per seat, sandbox applied
    transcript TEXT,               -- path of the gzip message log
    log_dir TEXT,                  -- folder of the bots' stderr logs
    finished REAL,
    worker TEXT,                   -- the cluster worker that played it (NULL: this machine, or before schema 5)
    build TEXT,                    -- the arena that played it: version+hash of its code (NULL before schema 5)
    UNIQUE (tournament, round, idx)
);
"""


# -- the rows, typed ---------------------------------------------------------------
# What the methods below return: plain dicts (the documented API, docs/api.md,
# reads ``tournament["game"]``), with their keys declared so that mypy checks
# every reader. Each is built in one place, from the columns its SELECT names.


class EntrantRecord(TypedDict):
    """One entrant of a tournament, in entry order: its name there and its bot (``bots.id``)."""

    name: str
    bot: int


class FaultRecord(TypedDict):
    """A stored fault (``arena._faults.Fault.to_json``). Only the first three
    keys are read unconditionally: matches stored by older arenas may lack the rest."""

    seat: int
    kind: str
    detail: str
    bot: NotRequired[str]
    received: NotRequired[str | None]
    expected: NotRequired[str | None]
    hand: NotRequired[int | None]
    stderr_tail: NotRequired[str]
    stderr_log: NotRequired[str | None]


class BotRecord(TypedDict):
    id: int
    name: str
    command: str
    sha256: str


class TournamentRecord(TypedDict):
    id: int
    game: str
    game_version: int
    params: dict[str, Any]
    seed: str
    rounds: int
    lifetime: str
    bots: list[int]  # one bot id per entrant
    status: str  # running | finished
    settings: dict[str, Any]  # every option a resume must restore ({} before schema 2)
    entrants: list[EntrantRecord]


class TournamentSummary(TypedDict):
    """A line of ``tournament_list``."""

    id: int
    game: str
    entrants: list[str]  # names
    status: str
    created: float
    finished: float | None
    scheduled: int  # matches
    played: int  # matches stored as played or forfeited


class MatchRecord(TypedDict):
    id: int
    round: int
    idx: int
    seats: list[int]  # entrant indices, seat order
    seed: str
    status: str  # pending | done | forfeit
    completed: bool
    hands: int
    scores: list[float]  # seat order ([] while pending)
    payoffs: list[float]
    faults: list[FaultRecord]
    timings: dict[str, Any]
    transcript: str | None
    log_dir: str | None
    tournament: int
    finished: float | None
    worker: str | None
    build: str | None


class PlayedMatch(TypedDict):
    """A match of ``played_since``: what a rating across tournaments needs."""

    id: int
    tournament: int
    seats: list[int]
    scores: list[float]
    faults: list[FaultRecord]
    finished: float
    entrants: list[EntrantRecord]  # the tournament's, shared by its matches: read, do not change


_TOURNAMENT_COLUMNS = "id, game, game_version, params, seed, rounds, lifetime, bots, status, settings, entrants"


def _tournament_record(row: tuple[Any, ...]) -> TournamentRecord:
    tid, game, game_version, params, seed, rounds, lifetime, bots, status, settings, entrants = row
    return TournamentRecord(
        id=tid, game=game, game_version=game_version, params=json.loads(params), seed=seed, rounds=rounds,
        lifetime=lifetime, bots=json.loads(bots), status=status, settings=_load(settings, {}),
        entrants=json.loads(entrants),
    )


_MATCH_COLUMNS = ("id, round, idx, seats, seed, status, completed, hands, scores, payoffs, faults, timings,"
                  " transcript, log_dir, tournament, finished, worker, build")


def _match_record(row: tuple[Any, ...]) -> MatchRecord:
    (mid, round_, idx, seats, seed, status, completed, hands, scores, payoffs, faults, timings,
     transcript, log_dir, tid, finished, worker, build) = row
    return MatchRecord(
        id=mid, round=round_, idx=idx, seats=json.loads(seats), seed=seed, status=status,
        completed=bool(completed), hands=hands or 0, scores=_load(scores, []), payoffs=_load(payoffs, []),
        faults=_load(faults, []), timings=_load(timings, {}), transcript=transcript, log_dir=log_dir,
        tournament=tid, finished=finished, worker=worker, build=build,
    )


def shown_seed(row: TournamentRecord | MatchRecord) -> str | None:
    """The seed of a stored tournament or match as it may be shown: a
    tournament's once it has finished, a match's once it is stored as played;
    None before, so that no page or listing gives away deals still to come."""
    if "round" in row:  # a match
        return row["seed"] if row["status"] != "pending" else None
    return row["seed"] if row["status"] == "finished" else None


def file_digest(command_argv: list[str]) -> str:
    """sha256 over every argument that names an existing file (the program, a script)."""
    digest = hashlib.sha256()
    for arg in command_argv:
        path = Path(arg)
        if path.is_file():
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


class StoreError(UsageError):
    """A ``--db`` that is not a results database this arena can use."""


#: SQLite's primary result codes that mean the file cannot be written (sqlite3.h).
SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN = 8, 10, 13, 14


def write_problem(exc: BaseException, path: Path) -> str | None:
    """What keeps the database at ``path`` from being written, in words, when
    ``exc`` says so (a full disk, a read-only file or filesystem); else None."""
    if not isinstance(exc, sqlite3.Error):
        return None
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    text = str(exc)
    if code == SQLITE_FULL or "disk is full" in text:
        return f"the database {path} cannot grow: its disk is full"
    try:
        mounted_ro = bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    except OSError:
        mounted_ro = False
    if mounted_ro:
        return (f"the database {path} is read-only: its filesystem is mounted read-only, and the arena writes "
                "to the file and beside it (its -wal and -shm files); give a writable place")
    if code == SQLITE_READONLY or "readonly" in text or (
            code == SQLITE_CANTOPEN and not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))):
        return (f"the database {path} is read-only: the file, its folder (where SQLite keeps its -wal and -shm "
                "files) or its filesystem cannot be written by this process; make them writable")
    if code in (SQLITE_IOERR, SQLITE_CANTOPEN):
        return f"the database {path} cannot be opened for writing or written ({text})"
    return None


class Store:
    """The results database. Use ``open_store``; one connection per process."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._locks: dict[int, int] = {}
        try:
            self.db = sqlite3.connect(path, isolation_level=None)  # explicit transactions
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            row = self._version()
            if row is not None and int(row) < SCHEMA_VERSION:
                _migrate(self.db, int(row))
            elif row is not None and int(row) != SCHEMA_VERSION:
                raise StoreError(
                    f"--db {path}: schema version {row}; this arena reads {SCHEMA_VERSION} (and older)"
                )
            self.db.executescript(_SCHEMA + _TOURNAMENTS + _MATCHES)
            if self._version() is None:
                self.db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError as exc:
            problem = write_problem(exc, path)
            if problem is not None:
                raise StoreError(f"--db {path}: {problem}") from None
            raise StoreError(f"--db {path}: not a results database this arena can use ({exc})") from None

    def _version(self) -> str | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.OperationalError:  # no meta table: a new file
            return None
        return row[0] if row else None

    def close(self) -> None:
        for fd in self._locks.values():
            os.close(fd)
        self._locks.clear()
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def data_dir(self) -> Path:
        """Where transcripts and stderr logs of this database live."""
        return self.path.with_name(self.path.stem + "-data")

    def lock_tournament(self, tid: int) -> None:
        """Hold tournament ``tid`` for this process (released by ``unlock_tournament``, at ``close`` or at exit)."""
        folder = self.data_dir
        folder.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(folder / f"t{tid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(
                f"tournament {tid} in {self.path} is being played by another arena process right now"
            ) from None
        self._locks[tid] = fd

    def unlock_tournament(self, tid: int) -> None:
        """Let go of tournament ``tid`` (held by ``lock_tournament``), if this process holds it:
        a long-lived process (the league) plays many tournaments, and resumes one it stopped."""
        fd = self._locks.pop(tid, None)
        if fd is not None:
            os.close(fd)  # closing the only descriptor of the open file releases its flock

    def add_event(self, tid: int, text: str) -> None:
        self.db.execute("INSERT INTO events (tournament, time, text) VALUES (?, ?, ?)", (tid, time.time(), text))

    def events(self, tid: int) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT text FROM events WHERE tournament=? ORDER BY id", (tid,))]

    # -- other owners' keys ------------------------------------------------------

    def meta_value(self, key: str) -> str | None:
        """The value another owner of tables in this file keeps under ``key``
        in ``meta`` (e.g. the league's schema version), None if unset."""
        _check_meta_key(key)
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta_value(self, key: str, value: str) -> None:
        """Keep ``value`` under ``key`` in ``meta``, in the caller's transaction if one is open."""
        _check_meta_key(key)
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    # -- bots and tournaments -----------------------------------------------------

    def bot_id(self, name: str, command: str, argv: list[str]) -> int:
        sha = file_digest(argv)
        self.db.execute(
            "INSERT OR IGNORE INTO bots (name, command, sha256) VALUES (?, ?, ?)", (name, command, sha)
        )
        return self.db.execute(
            "SELECT id FROM bots WHERE command=? AND sha256=?", (command, sha)
        ).fetchone()[0]

    def bot(self, bot_id: int) -> BotRecord:
        bid, name, command, sha256 = self.db.execute(
            "SELECT id, name, command, sha256 FROM bots WHERE id=?", (bot_id,)).fetchone()
        return BotRecord(id=bid, name=name, command=command, sha256=sha256)

    def new_tournament(
        self, game: str, game_version: int, params: dict, seed: str, rounds: int, lifetime: str,
        entrants: list[tuple[str, int]], settings: dict[str, Any] | None = None,
    ) -> int:
        """A new tournament of ``entrants`` (name, bot id) in entry order."""
        cur = self.db.execute(
            "INSERT INTO tournaments (game, game_version, params, seed, rounds, lifetime, bots, status, created,"
            " settings, entrants) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?)",
            (game, game_version, json.dumps(params), seed, rounds, lifetime,
             json.dumps([b for _, b in entrants]), time.time(), json.dumps(settings or {}),
             json.dumps([{"name": n, "bot": b} for n, b in entrants])),
        )
        return inserted_id(cur)

    def tournament(self, tid: int) -> TournamentRecord | None:
        row = self.db.execute(f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments WHERE id=?", (tid,)).fetchone()
        return None if row is None else _tournament_record(row)

    def tournaments(self) -> list[TournamentRecord]:
        ids = [r[0] for r in self.db.execute("SELECT id FROM tournaments ORDER BY id")]
        return [t for t in (self.tournament(i) for i in ids) if t is not None]

    def tournament_list(self) -> list[TournamentSummary]:
        """Every stored tournament, oldest first, in a few words: id, game,
        entrant names, status, when it started and finished, matches stored of scheduled."""
        rows = self.db.execute(
            "SELECT t.id, t.game, t.entrants, t.status, t.created, t.finished,"
            " COUNT(m.id), COALESCE(SUM(m.status != 'pending'), 0)"
            " FROM tournaments t LEFT JOIN matches m ON m.tournament = t.id GROUP BY t.id ORDER BY t.id"
        ).fetchall()
        return [TournamentSummary(id=tid, game=game, entrants=[e["name"] for e in _load(entrants, [])], status=status,
                                  created=created, finished=finished, scheduled=scheduled, played=played)
                for tid, game, entrants, status, created, finished, scheduled, played in rows]

    def latest_tournament(self) -> int | None:
        row = self.db.execute("SELECT MAX(id) FROM tournaments").fetchone()
        return None if row[0] is None else int(row[0])

    def set_rounds(self, tid: int, rounds: int) -> None:
        self.db.execute("UPDATE tournaments SET rounds=? WHERE id=?", (rounds, tid))

    def finish_tournament(self, tid: int) -> None:
        self.db.execute(
            "UPDATE tournaments SET status='finished', finished=? WHERE id=?", (time.time(), tid)
        )

    # -- matches ------------------------------------------------------------------

    def schedule(self, tid: int, pairings: list[Any]) -> None:
        """Write ``pairings`` (round, idx, seats, seed) as pending rows; existing ones stay."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR IGNORE INTO matches (tournament, round, idx, seats, seed, status)"
                " VALUES (?, ?, ?, ?, ?, 'pending')",
                [(tid, p.round, p.idx, json.dumps(list(p.seats)), p.seed) for p in pairings],
            )

    def match_ids(self, tid: int) -> dict[tuple[int, int], int]:
        rows = self.db.execute("SELECT round, idx, id FROM matches WHERE tournament=?", (tid,))
        return {(r, i): mid for r, i, mid in rows}

    def done_positions(self, tid: int) -> set[tuple[int, int]]:
        rows = self.db.execute("SELECT round, idx FROM matches WHERE tournament=? AND status != 'pending'", (tid,))
        return {(r, i) for r, i in rows}

    @contextlib.contextmanager
    def together(self) -> Iterator[None]:
        """One transaction for what is stored inside (a cluster batch's matches: one commit,
        not one each); rolled back if it raises. Inside another, it is part of that one."""
        if self.db.in_transaction:
            yield
            return
        with self.db:
            self.db.execute("BEGIN")
            yield

    def add_match(self, tid: int, record: dict[str, Any]) -> int:
        """Store one finished (or forfeited) match at its position; a second write is refused."""
        status = record.get("status", "done")
        args = (
            status, int(record["completed"]), record["hands"], json.dumps(record["scores"]),
            json.dumps(record["payoffs"]), json.dumps(record["faults"]), json.dumps(record["timings"]),
            record.get("transcript"), record.get("log_dir"), time.time(), record.get("worker"), record.get("build"),
        )
        cur = self.db.execute(
            "UPDATE matches SET status=?, completed=?, hands=?, scores=?, payoffs=?, faults=?, timings=?,"
            " transcript=?, log_dir=?, finished=?, worker=?, build=?"
            " WHERE tournament=? AND round=? AND idx=? AND status='pending'",
            (*args, tid, record["round"], record["idx"]),
        )
        if cur.rowcount == 1:
            # One lookup through the (tournament, round, idx) index: storing a
            # match costs the same however many matches its tournament has.
            return int(self.db.execute(
                "SELECT id FROM matches WHERE tournament=? AND round=? AND idx=?",
                (tid, record["round"], record["idx"]),
            ).fetchone()[0])
        # Not scheduled beforehand (or already stored: the UNIQUE constraint refuses it).
        cur = self.db.execute(
            "INSERT INTO matches (tournament, round, idx, seats, seed, status, completed, hands, scores, payoffs,"
            " faults, timings, transcript, log_dir, finished, worker, build) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (tid, record["round"], record["idx"], json.dumps(record["seats"]), record["seed"], *args),
        )
        return inserted_id(cur)

    def match_counts(self, tid: int) -> tuple[int, int]:
        """(matches scheduled, matches stored as played or forfeited) of tournament ``tid``."""
        total, stored = self.db.execute(
            "SELECT COUNT(*), SUM(status != 'pending') FROM matches WHERE tournament=?", (tid,)
        ).fetchone()
        return int(total or 0), int(stored or 0)

    def played_since(
        self, game: str, after: tuple[float, int] = (0.0, 0), tournaments: Container[int] | None = None,
    ) -> list[PlayedMatch]:
        """The played matches of ``game`` stored after ``after`` (finished, id),
        in the order they finished (ties by id), only of ``tournaments`` if given.

        Each is a dict (``PlayedMatch``): id, tournament, seats (entrant
        indices), scores, faults, finished, and the tournament's entrants (one
        list per tournament, shared by its matches: read, do not change).
        Forfeits are left out: they were not played. What a rating of many
        tournaments needs.
        """
        rows = self.db.execute(
            "SELECT m.id, m.tournament, m.seats, m.scores, m.faults, m.finished, t.entrants"
            " FROM matches m JOIN tournaments t ON t.id=m.tournament"
            " WHERE t.game=? AND m.status='done' AND (m.finished > ? OR (m.finished = ? AND m.id > ?))"
            " ORDER BY m.finished, m.id",
            (game, after[0], after[0], after[1]),
        )
        entrants: dict[int, list[EntrantRecord]] = {}
        out = []
        for mid, tid, seats, scores, faults, finished, entrants_json in rows:
            if tournaments is not None and tid not in tournaments:
                continue
            if tid not in entrants:
                entrants[tid] = _load(entrants_json, [])
            out.append(PlayedMatch(id=mid, tournament=tid, seats=json.loads(seats), scores=_load(scores, []),
                                   faults=_load(faults, []), finished=finished, entrants=entrants[tid]))
        return out

    def matches(self, tid: int, *, pending: bool = False, from_round: int = 0) -> list[MatchRecord]:
        """The tournament's matches in schedule order (played and forfeited; pending too if asked),
        from round ``from_round`` on."""
        where = "" if pending else " AND status != 'pending'"
        rows = self.db.execute(
            f"SELECT {_MATCH_COLUMNS} FROM matches WHERE tournament=? AND round >= ?{where} ORDER BY round, idx",
            (tid, from_round),
        )
        return [_match_record(r) for r in rows]

    def match(self, match_id: int) -> MatchRecord | None:
        row = self.db.execute(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE id=?", (match_id,)).fetchone()
        return None if row is None else _match_record(row)


def _check_meta_key(key: str) -> None:
    if key == "schema_version":
        raise ValueError("meta's 'schema_version' is the results store's own; another owner uses a key of its own")


def _load(text: str | None, default: Any) -> Any:
    return json.loads(text) if text else default


def inserted_id(cur: sqlite3.Cursor) -> int:
    """The id of the row an INSERT just made (typeshed allows None: a cursor that inserted nothing)."""
    assert cur.lastrowid is not None
    return cur.lastrowid


def _migrate(db: sqlite3.Connection, version: int) -> None:
    """Bring an older database to the current schema, keeping every result."""
    # Tables are rebuilt under the names others refer to: no foreign key may
    # be checked half-way (the pragma only takes effect outside a transaction).
    db.execute("PRAGMA foreign_keys=OFF")
    try:
        with db:
            db.execute("BEGIN")
            if version < 3:
                _migrate_to_3(db, version)
            if version < 4:
                _migrate_to_4(db)
            _migrate_to_5(db)
            db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION),))
    finally:
        db.execute("PRAGMA foreign_keys=ON")


def _migrate_to_5(db: sqlite3.Connection) -> None:
    """Schema 5: each match names the worker and the arena build that played it
    (unknown, NULL, for matches stored before; a cluster match's worker was in its timings)."""
    have = {r[1] for r in db.execute("PRAGMA table_info(matches)")}
    for column in ("worker", "build"):
        if column not in have:  # an older table rebuilt on the way here already has them
            db.execute(f"ALTER TABLE matches ADD COLUMN {column} TEXT")
    db.execute("UPDATE matches SET worker=json_extract(timings, '$.worker') WHERE timings IS NOT NULL")


def _migrate_to_4(db: sqlite3.Connection) -> None:
    """Schema 4: seeds are text (a derived seed has 128 bits, more than an SQLite integer)."""
    for table, create in (("tournaments", _TOURNAMENTS), ("matches", _MATCHES)):
        columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
        picked = ", ".join(f"CAST({c} AS TEXT)" if c == "seed" else c for c in columns)
        db.execute(create.replace(f"IF NOT EXISTS {table} ", f"{table}_v4 "))
        db.execute(f"INSERT INTO {table}_v4 ({', '.join(columns)}) SELECT {picked} FROM {table}")
        db.execute(f"DROP TABLE {table}")
        db.execute(f"ALTER TABLE {table}_v4 RENAME TO {table}")


def _migrate_to_3(db: sqlite3.Connection, version: int) -> None:
    """Schema 1 or 2 to 3: entrants are not bots (one bot may enter twice)."""
    if version < 2:
        db.execute("ALTER TABLE tournaments ADD COLUMN settings TEXT")
    db.execute("ALTER TABLE tournaments ADD COLUMN entrants TEXT")
    tournaments = db.execute("SELECT id, bots FROM tournaments").fetchall()
    names = dict(db.execute("SELECT id, name FROM bots").fetchall())
    index: dict[int, dict[int, int]] = {}
    for tid, bots in tournaments:
        ids = json.loads(bots)
        db.execute("UPDATE tournaments SET entrants=? WHERE id=?",
                   (json.dumps([{"name": names.get(b, str(b)), "bot": b} for b in ids]), tid))
        index[tid] = {}
        for i, b in enumerate(ids):
            index[tid].setdefault(b, i)  # before schema 3 one bot could be one entrant only
    db.execute("ALTER TABLE matches RENAME TO matches_v2")
    db.execute(_MATCHES)
    for row in db.execute("SELECT id, tournament, round, idx, seats, seed, completed, hands, scores, payoffs,"
                          " faults, timings, transcript, log_dir, finished FROM matches_v2").fetchall():
        seats = [index[row[1]].get(b, b) for b in json.loads(row[4])]
        db.execute(
            "INSERT INTO matches (id, tournament, round, idx, seats, seed, status, completed, hands, scores,"
            " payoffs, faults, timings, transcript, log_dir, finished)"
            " VALUES (?, ?, ?, ?, ?, ?, 'done', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row[0], row[1], row[2], row[3], json.dumps(seats), *row[5:]),
        )
    db.execute("DROP TABLE matches_v2")


def open_store(path: Path, *, create: bool = True) -> Store:
    """The database at ``path``, made private to this user when it is created.

    Raises ``StoreError`` (a usage error) for a folder, a file that is not a
    results database, or (``create=False``) a missing file.
    """
    path = Path(path)
    if path.is_dir():
        raise StoreError(f"--db {path} is a folder; give a database file")
    if not path.exists():
        if not create:
            raise StoreError(f"--db {path}: no such database")
        if not path.parent.exists():
            os.makedirs(path.parent, mode=0o700, exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    store = Store(path)
    store.data_dir.mkdir(mode=0o700, exist_ok=True)
    return store
