"""Durable results: one SQLite file (WAL) per set of tournaments.

Each match is written, in its own transaction, the moment it finishes, so a
tournament killed at any point loses at most the matches that were running.
The file, its WAL and its data folder (transcripts, stderr logs) are private
to the arena's user (0600 / 0700): bots never see them, and other users of
the machine need not. A tournament being played holds a lock, so that a
second ``--resume`` of it is refused rather than run twice.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from ._checks import UsageError

SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    command TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    UNIQUE (command, sha256)
);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    game_version INTEGER NOT NULL,
    params TEXT NOT NULL,          -- JSON
    seed INTEGER NOT NULL,
    rounds INTEGER NOT NULL,
    lifetime TEXT NOT NULL,
    bots TEXT NOT NULL,            -- JSON list of bot ids, in entry order
    status TEXT NOT NULL,          -- running | finished
    created REAL NOT NULL,
    finished REAL,
    settings TEXT                  -- JSON: every option a resume must restore
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    tournament INTEGER NOT NULL REFERENCES tournaments(id),
    time REAL NOT NULL,
    text TEXT NOT NULL             -- what an organiser accepted, e.g. a changed bot
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    tournament INTEGER NOT NULL REFERENCES tournaments(id),
    round INTEGER NOT NULL,
    idx INTEGER NOT NULL,          -- position in the round's schedule
    seats TEXT NOT NULL,           -- JSON list of bot ids, in seat order
    seed INTEGER NOT NULL,
    completed INTEGER NOT NULL,
    hands INTEGER NOT NULL,
    scores TEXT NOT NULL,          -- JSON list, seat order
    payoffs TEXT NOT NULL,         -- JSON list, seat order
    faults TEXT NOT NULL,          -- JSON list of fault objects
    timings TEXT NOT NULL,         -- JSON: duration, exchanges, time used per seat
    transcript TEXT,               -- path of the gzip message log
    log_dir TEXT,                  -- folder of the bots' stderr logs
    finished REAL NOT NULL,
    UNIQUE (tournament, round, idx)
);
"""


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
            self.db.executescript(_SCHEMA)
            row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is None:
                self.db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) == 1:
                self.db.execute("ALTER TABLE tournaments ADD COLUMN settings TEXT")
                self.db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION),))
            elif int(row[0]) != SCHEMA_VERSION:
                raise StoreError(
                    f"--db {path}: schema version {row[0]}; this arena reads {SCHEMA_VERSION} (and 1)"
                )
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"--db {path}: not a results database this arena can use ({exc})") from None

    def close(self) -> None:
        for fd in self._locks.values():
            os.close(fd)
        self._locks.clear()
        self.db.close()

    def lock_tournament(self, tid: int) -> None:
        """Hold tournament ``tid`` for this process (released at ``close`` or exit)."""
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

    def add_event(self, tid: int, text: str) -> None:
        self.db.execute("INSERT INTO events (tournament, time, text) VALUES (?, ?, ?)", (tid, time.time(), text))

    def events(self, tid: int) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT text FROM events WHERE tournament=? ORDER BY id", (tid,))]

    @property
    def data_dir(self) -> Path:
        """Where transcripts and stderr logs of this database live."""
        return self.path.with_name(self.path.stem + "-data")

    def bot_id(self, name: str, command: str, argv: list[str]) -> int:
        sha = file_digest(argv)
        self.db.execute(
            "INSERT OR IGNORE INTO bots (name, command, sha256) VALUES (?, ?, ?)", (name, command, sha)
        )
        return self.db.execute(
            "SELECT id FROM bots WHERE command=? AND sha256=?", (command, sha)
        ).fetchone()[0]

    def bot(self, bot_id: int) -> dict[str, Any]:
        row = self.db.execute("SELECT id, name, command, sha256 FROM bots WHERE id=?", (bot_id,)).fetchone()
        return {"id": row[0], "name": row[1], "command": row[2], "sha256": row[3]}

    def new_tournament(
        self, game: str, game_version: int, params: dict, seed: int, rounds: int, lifetime: str,
        bot_ids: list[int], settings: dict[str, Any] | None = None,
    ) -> int:
        cur = self.db.execute(
            "INSERT INTO tournaments (game, game_version, params, seed, rounds, lifetime, bots, status, created,"
            " settings) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?)",
            (game, game_version, json.dumps(params), seed, rounds, lifetime, json.dumps(bot_ids), time.time(),
             json.dumps(settings or {})),
        )
        return int(cur.lastrowid)

    def tournament(self, tid: int) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT id, game, game_version, params, seed, rounds, lifetime, bots, status, settings"
            " FROM tournaments WHERE id=?",
            (tid,),
        ).fetchone()
        if row is None:
            return None
        return {
            "id": row[0], "game": row[1], "game_version": row[2], "params": json.loads(row[3]),
            "seed": row[4], "rounds": row[5], "lifetime": row[6], "bots": json.loads(row[7]),
            "status": row[8], "settings": json.loads(row[9]) if row[9] else {},
        }

    def finish_tournament(self, tid: int) -> None:
        self.db.execute(
            "UPDATE tournaments SET status='finished', finished=? WHERE id=?", (time.time(), tid)
        )

    def done_positions(self, tid: int) -> set[tuple[int, int]]:
        rows = self.db.execute("SELECT round, idx FROM matches WHERE tournament=?", (tid,))
        return {(r, i) for r, i in rows}

    def add_match(self, tid: int, record: dict[str, Any]) -> int:
        """Store one finished match; a second write of the same position is refused."""
        cur = self.db.execute(
            "INSERT INTO matches (tournament, round, idx, seats, seed, completed, hands, scores, payoffs,"
            " faults, timings, transcript, log_dir, finished) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                tid, record["round"], record["idx"], json.dumps(record["seats"]), record["seed"],
                int(record["completed"]), record["hands"], json.dumps(record["scores"]),
                json.dumps(record["payoffs"]), json.dumps(record["faults"]), json.dumps(record["timings"]),
                record.get("transcript"), record.get("log_dir"), time.time(),
            ),
        )
        return int(cur.lastrowid)

    def matches(self, tid: int) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT id, round, idx, seats, seed, completed, hands, scores, payoffs, faults, timings,"
            " transcript, log_dir FROM matches WHERE tournament=? ORDER BY round, idx",
            (tid,),
        )
        return [_match_row(r) for r in rows]

    def match(self, match_id: int) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT id, round, idx, seats, seed, completed, hands, scores, payoffs, faults, timings,"
            " transcript, log_dir, tournament FROM matches WHERE id=?",
            (match_id,),
        ).fetchone()
        if row is None:
            return None
        record = _match_row(row[:13])
        record["tournament"] = row[13]
        return record


def _match_row(r: tuple) -> dict[str, Any]:
    return {
        "id": r[0], "round": r[1], "idx": r[2], "seats": json.loads(r[3]), "seed": r[4],
        "completed": bool(r[5]), "hands": r[6], "scores": json.loads(r[7]), "payoffs": json.loads(r[8]),
        "faults": json.loads(r[9]), "timings": json.loads(r[10]), "transcript": r[11], "log_dir": r[12],
    }


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
