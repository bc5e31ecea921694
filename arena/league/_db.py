"""The league's own tables, in the same SQLite file as the results.

One owner per table. The results (``meta``, ``bots``, ``events``,
``tournaments``, ``matches``) belong to ``arena.results._store``, so that
``arena show``/``arena tournament --resume`` read a league's file like any
other; the league reads them through the store's methods only. The league
owns its ``league_*`` tables: who submitted what (users, sessions, bots,
versions) and which tournaments it ran. Each owner versions its own schema:
the store under ``meta``'s ``schema_version``, the league under
``league_schema_version`` (kept through the store's ``meta_value``). One
connection per process: the server's web handlers, its scheduler and its
pipeline run on one trio thread.

Tokens are 256-bit random strings, so a plain SHA-256 of one is enough to
store (nothing to brute-force, unlike a password); a session cookie likewise.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import time
from typing import Any, NamedTuple, TypedDict

from ..results._store import Store, StoreError, inserted_id

#: The league's schema, one step per version, forward only: step ``i`` takes
#: the league's tables from version ``i`` to ``i + 1`` (version 0: none yet).
#: Never change a step that has shipped; add one.
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the tables as first made, before the league kept a version of its own.
    (
        """CREATE TABLE IF NOT EXISTS league_users (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            token_hash TEXT NOT NULL UNIQUE,
            admin INTEGER NOT NULL DEFAULT 0,
            created REAL NOT NULL
        )""",
        """CREATE TABLE IF NOT EXISTS league_sessions (
            hash TEXT PRIMARY KEY,
            user INTEGER NOT NULL REFERENCES league_users(id),
            csrf TEXT NOT NULL,
            expires REAL NOT NULL
        )""",
        """CREATE TABLE IF NOT EXISTS league_bots (
            id INTEGER PRIMARY KEY,
            owner INTEGER NOT NULL REFERENCES league_users(id),
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            paused INTEGER NOT NULL DEFAULT 0,
            created REAL NOT NULL,
            UNIQUE (game, name)
        )""",
        """CREATE TABLE IF NOT EXISTS league_versions (
            id INTEGER PRIMARY KEY,
            bot INTEGER NOT NULL REFERENCES league_bots(id),
            number INTEGER NOT NULL,
            sha256 TEXT NOT NULL,          -- of the upload (its blob)
            kind TEXT NOT NULL,            -- file | zip | tar.gz
            state TEXT NOT NULL,           -- received | built | quarantined | active | retired | rejected
            message TEXT NOT NULL DEFAULT '',
            manifest TEXT NOT NULL,        -- JSON: run, build
            command TEXT,                  -- the run command, absolute, once unpacked
            steps TEXT NOT NULL DEFAULT '[]',  -- JSON: the pipeline's steps with their results
            store_bot INTEGER,             -- arena.results._store's bot id, once it has played
            created REAL NOT NULL,
            updated REAL NOT NULL,
            UNIQUE (bot, number)
        )""",
        """CREATE TABLE IF NOT EXISTS league_tournaments (
            tournament INTEGER PRIMARY KEY,  -- arena.results._store's tournament id
            kind TEXT NOT NULL,            -- scheduled | placement | manual
            version INTEGER                -- the candidate of a placement gauntlet
        )""",
    ),
    # 2: indexes for what every page and ratings update looks up: a session's
    # expiry and its user (a new token ends the user's sessions), a version by
    # the store's bot id.
    (
        "CREATE INDEX IF NOT EXISTS league_sessions_expires ON league_sessions (expires)",
        "CREATE INDEX IF NOT EXISTS league_sessions_user ON league_sessions (user)",
        "CREATE INDEX IF NOT EXISTS league_versions_store_bot ON league_versions (store_bot)",
    ),
)

#: The version of the league's tables this arena makes and reads.
LEAGUE_SCHEMA_VERSION = len(_MIGRATIONS)
#: Where the league keeps it, in the store's ``meta`` (the store's own key is ``schema_version``).
VERSION_KEY = "league_schema_version"


class LeagueDbError(StoreError):
    """A ``--db`` whose league tables this arena cannot use."""


def _found_version(store: Store) -> int:
    """The version of the league's tables in ``store``'s file (0: none yet)."""
    text = store.meta_value(VERSION_KEY)
    if text is None:
        # Made before the league kept a version: its tables, if any, are version 1.
        found = store.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='league_users'").fetchone()
        return 1 if found else 0
    if not text.isdigit():
        raise LeagueDbError(f"--db {store.path}: the league's schema version is {text!r}, not a version number; "
                            "this file was not made by arena")
    return int(text)


def _migrate(store: Store) -> None:
    """Bring the league's tables in ``store``'s file to ``LEAGUE_SCHEMA_VERSION``,
    in one transaction; a file from a newer arena is refused and left as it is."""
    if store.meta_value(VERSION_KEY) == str(LEAGUE_SCHEMA_VERSION):
        return  # the usual case: no write, no lock
    db = store.db
    db.execute("BEGIN IMMEDIATE")  # another process may be migrating the same file: one at a time
    try:
        version = _found_version(store)
        if version > LEAGUE_SCHEMA_VERSION:
            raise LeagueDbError(
                f"--db {store.path}: its league tables are at schema version {version}, made by a newer arena; "
                f"this arena reads version {LEAGUE_SCHEMA_VERSION} and older. Serve it with that newer arena."
            )
        for step in _MIGRATIONS[version:]:
            for statement in step:
                db.execute(statement)
        store.set_meta_value(VERSION_KEY, str(LEAGUE_SCHEMA_VERSION))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


#: Pipeline states in order; ``rejected`` can follow any of the first three.
STATES = ("received", "built", "quarantined", "active", "retired", "rejected")
SESSION_SECONDS = 7 * 24 * 3600


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


# -- the rows, typed ---------------------------------------------------------------
# Plain dicts (the pages hand them to Jinja and to their JSON twins) with their
# keys declared, so that mypy checks every reader; each is built in one place.


class UserRecord(TypedDict):
    id: int
    name: str
    admin: bool


class ManifestRecord(TypedDict):
    """A version's arena.toml, as far as the league keeps it."""

    run: str
    build: str | None


class StepRecord(TypedDict):
    """One step of a version's pipeline (build, quarantine, probation) with its result."""

    name: str
    status: str  # RUNNING | PASS | FAIL | ERROR
    summary: str
    details: list[str]
    log: str | None


class LeagueBotRecord(TypedDict):
    id: int
    owner: int
    game: str
    name: str
    paused: bool
    owner_name: str


class VersionRecord(TypedDict):
    """A version with its bot's name, game, owner and pause (a join of three tables)."""

    id: int
    bot: int
    number: int
    sha256: str
    kind: str  # file | zip | tar.gz
    state: str  # one of STATES
    message: str
    manifest: ManifestRecord
    command: str | None  # once built
    steps: list[StepRecord]
    store_bot: int | None  # once it has played
    created: float
    updated: float
    name: str
    game: str
    owner: int
    owner_name: str
    paused: bool
    label: str  # "name vN", as the pages and the tournaments name it


class FoundBot(NamedTuple):
    id: int
    owner: int
    name: str  # as first spelled


class LeagueTournament(NamedTuple):
    kind: str  # scheduled | placement | manual | friendly
    version: int | None  # the candidate of a placement gauntlet


_VERSION_COLUMNS = ("v.id, v.bot, v.number, v.sha256, v.kind, v.state, v.message, v.manifest, v.command, v.steps,"
                    " v.store_bot, v.created, v.updated, b.name, b.game, b.owner, u.name, b.paused")


def _version_record(row: tuple[Any, ...]) -> VersionRecord:
    (vid, bot, number, sha256, kind, state, message, manifest, command, steps, store_bot, created, updated,
     name, game, owner, owner_name, paused) = row
    return VersionRecord(
        id=vid, bot=bot, number=number, sha256=sha256, kind=kind, state=state, message=message,
        manifest=json.loads(manifest), command=command, steps=json.loads(steps), store_bot=store_bot,
        created=created, updated=updated, name=name, game=game, owner=owner, owner_name=owner_name,
        paused=bool(paused), label=f"{name} v{number}",
    )


def _user_record(row: tuple[Any, ...]) -> UserRecord:
    uid, name, admin = row
    return UserRecord(id=uid, name=name, admin=bool(admin))


class League:
    """The league's tables over ``store``'s connection."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db: sqlite3.Connection = store.db
        _migrate(store)

    # -- users, tokens, sessions -------------------------------------------------

    def add_user(self, name: str, admin: bool = False) -> str:
        """A new user; returns its token (shown once: only its hash is kept)."""
        token = "arena_" + secrets.token_urlsafe(32)
        same = self.db.execute("SELECT name FROM league_users WHERE lower(name)=lower(?)", (name,)).fetchone()
        if same is not None:  # names are told apart regardless of case, as people read them
            raise ValueError(f"there is already a user named {same[0]!r}")
        try:
            self.db.execute("INSERT INTO league_users (name, token_hash, admin, created) VALUES (?, ?, ?, ?)",
                            (name, digest(token), int(admin), time.time()))
        except sqlite3.IntegrityError:
            raise ValueError(f"there is already a user named {name!r}") from None
        return token

    def new_token(self, name: str) -> str:
        """A new token for ``name``; the old one stops working, and so do its sessions."""
        token = "arena_" + secrets.token_urlsafe(32)
        cur = self.db.execute("UPDATE league_users SET token_hash=? WHERE name=?", (digest(token), name))
        if cur.rowcount == 0:
            raise ValueError(f"there is no user named {name!r}")
        self.db.execute("DELETE FROM league_sessions WHERE user=(SELECT id FROM league_users WHERE name=?)", (name,))
        return token

    def user_by_token(self, token: str) -> UserRecord | None:
        row = self.db.execute("SELECT id, name, admin FROM league_users WHERE token_hash=?",
                              (digest(token),)).fetchone()
        return None if row is None else _user_record(row)

    def user(self, uid: int) -> UserRecord | None:
        row = self.db.execute("SELECT id, name, admin FROM league_users WHERE id=?", (uid,)).fetchone()
        return None if row is None else _user_record(row)

    def users(self) -> list[UserRecord]:
        return [_user_record(r) for r in self.db.execute("SELECT id, name, admin FROM league_users ORDER BY id")]

    def new_session(self, uid: int) -> tuple[str, str]:
        """A session for ``uid``: (cookie value, CSRF token)."""
        cookie, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = time.time()
        self.db.execute("DELETE FROM league_sessions WHERE expires < ?", (now,))
        self.db.execute("INSERT INTO league_sessions VALUES (?, ?, ?, ?)",
                        (digest(cookie), uid, csrf, now + SESSION_SECONDS))
        return cookie, csrf

    def session(self, cookie: str) -> tuple[UserRecord, str] | None:
        row = self.db.execute("SELECT user, csrf FROM league_sessions WHERE hash=? AND expires >= ?",
                              (digest(cookie), time.time())).fetchone()
        if row is None:
            return None
        user = self.user(row[0])
        return (user, row[1]) if user else None

    def end_session(self, cookie: str) -> None:
        self.db.execute("DELETE FROM league_sessions WHERE hash=?", (digest(cookie),))

    # -- bots and versions ---------------------------------------------------------

    def bot_for(self, owner: int, game: str, name: str) -> int:
        """The bot ``name`` of ``game``, made for ``owner`` if new; another owner's is refused.

        Names are compared regardless of case (``Eq`` and ``eq`` would read as
        one bot on the leaderboard); ``new`` only looks, it makes nothing."""
        row = self.find_bot(game, name)
        if row is None:
            cur = self.db.execute("INSERT INTO league_bots (owner, game, name, created) VALUES (?, ?, ?, ?)",
                                  (owner, game, name, time.time()))
            return inserted_id(cur)
        if row.owner != owner:
            raise PermissionError(f"the {game} bot {row.name!r} belongs to another user (names are compared "
                                  f"regardless of case), so {name!r} cannot be used; choose another name")
        if row.name != name:
            raise ValueError(f"your {game} bot is spelled {row.name!r}; send its new version under that name, "
                             f"not {name!r} (names are compared regardless of case)")
        return row.id

    def find_bot(self, game: str, name: str) -> FoundBot | None:
        """(id, owner, name as first spelled) of the bot of ``game`` named ``name`` in any case."""
        row = self.db.execute("SELECT id, owner, name FROM league_bots WHERE game=? AND lower(name)=lower(?)"
                              " ORDER BY id LIMIT 1", (game, name)).fetchone()
        return None if row is None else FoundBot(int(row[0]), int(row[1]), str(row[2]))

    def pool_count(self, owner: int, game: str) -> int:
        """Versions of ``owner``'s bots in ``game``'s pool (active, paused bots included)."""
        return int(self.db.execute("SELECT COUNT(*) FROM league_versions v JOIN league_bots b ON b.id=v.bot"
                                   " WHERE b.owner=? AND b.game=? AND v.state='active'", (owner, game)).fetchone()[0])

    def add_version(self, bot: int, sha256: str, kind: str, manifest: ManifestRecord) -> int:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            number = self.db.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM league_versions WHERE bot=?",
                                     (bot,)).fetchone()[0]
            now = time.time()
            cur = self.db.execute(
                "INSERT INTO league_versions (bot, number, sha256, kind, state, manifest, created, updated)"
                " VALUES (?, ?, ?, ?, 'received', ?, ?, ?)", (bot, number, sha256, kind, json.dumps(manifest), now, now))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return inserted_id(cur)

    def set_state(self, vid: int, state: str, message: str = "", **fields: Any) -> None:
        assert state in STATES, state
        sets = ["state=?", "message=?", "updated=?"]
        values: list[Any] = [state, message, time.time()]
        for key, value in fields.items():
            assert key in ("command", "steps", "store_bot"), key
            sets.append(f"{key}=?")
            values.append(json.dumps(value) if key == "steps" else value)
        self.db.execute(f"UPDATE league_versions SET {', '.join(sets)} WHERE id=?", (*values, vid))

    def set_steps(self, vid: int, steps: list[StepRecord]) -> None:
        self.db.execute("UPDATE league_versions SET steps=?, updated=? WHERE id=?", (json.dumps(steps), time.time(), vid))

    def version(self, vid: int) -> VersionRecord | None:
        rows = self.versions("v.id=?", (vid,))
        return rows[0] if rows else None

    def versions(self, where: str = "1", args: tuple[Any, ...] = ()) -> list[VersionRecord]:
        rows = self.db.execute(
            f"SELECT {_VERSION_COLUMNS}"
            " FROM league_versions v JOIN league_bots b ON b.id=v.bot JOIN league_users u ON u.id=b.owner"
            f" WHERE {where} ORDER BY v.id", args).fetchall()
        return [_version_record(r) for r in rows]

    def bot(self, bot_id: int) -> LeagueBotRecord | None:
        row = self.db.execute(
            "SELECT b.id, b.owner, b.game, b.name, b.paused, u.name FROM league_bots b"
            " JOIN league_users u ON u.id=b.owner WHERE b.id=?", (bot_id,)).fetchone()
        if row is None:
            return None
        bid, owner, game, name, paused, owner_name = row
        return LeagueBotRecord(id=bid, owner=owner, game=game, name=name, paused=bool(paused), owner_name=owner_name)

    def set_paused(self, bot_id: int, paused: bool) -> None:
        self.db.execute("UPDATE league_bots SET paused=? WHERE id=?", (int(paused), bot_id))

    def pool(self, game: str) -> list[VersionRecord]:
        """The versions that play: active, of bots not paused."""
        return self.versions("b.game=? AND v.state='active' AND b.paused=0", (game,))

    # -- tournaments -----------------------------------------------------------------

    def add_tournament(self, tid: int, kind: str, version: int | None = None) -> None:
        self.db.execute("INSERT INTO league_tournaments VALUES (?, ?, ?)", (tid, kind, version))

    def tournament_kinds(self) -> dict[int, LeagueTournament]:
        """The league's tournaments: each one's kind (and a placement's candidate) by its store id."""
        return {tid: LeagueTournament(kind, version)
                for tid, kind, version in self.db.execute("SELECT tournament, kind, version FROM league_tournaments")}
