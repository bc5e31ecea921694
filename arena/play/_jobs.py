"""The two records of a match played away from the coordinator: the job a
worker process (``arena.play._worker``, here or on a cluster) is sent, and
the record it answers with, which the tournament stores. Each goes over a
pipe or through Dask as JSON (``to_json``/``from_json``)."""

from __future__ import annotations

import signal
import sys
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ._match import MatchResult


def worker_argv(core: int) -> list[str]:
    """The command of a worker process pinned to ``core``.

    It runs with SIGINT ignored: a Ctrl-C on a terminal reaches the whole
    process group, and it is the coordinator's to act on (it ends its
    workers); a worker that took it too would print a traceback over the
    coordinator's one line. Started with ``ignore_sigint`` the worker has it
    ignored from ``exec`` on; the first line of its command ignores it too,
    for a starter that cannot run code in the child. Ignored signals survive
    ``exec``, so the supervisor resets them for every bot.
    """
    return [sys.executable, "-c", "import signal, runpy; signal.signal(signal.SIGINT, signal.SIG_IGN); "
            "runpy.run_module('arena.play._worker', run_name='__main__', alter_sys=True)", str(core)]


def ignore_sigint() -> None:
    """A ``preexec_fn`` for a worker: SIGINT ignored before ``exec``. Until its
    command's first line ran, a worker started as a Ctrl-C arrived died of it
    (exit -2) or failed in Python's start-up ("Fatal Python error:
    init_import_site" and a traceback on the coordinator's terminal)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class JobBot(NamedTuple):
    """One seat of a job: the entrant's name and the command that starts it."""

    name: str
    command: str
    #: its entrant's data folder (``BotSpec.data``), if it has one
    data: str | None = None


@dataclass(frozen=True, slots=True)
class MatchJob:
    """One match for a worker to play: everything it needs, nothing it must look up.

    ``key`` is the match's position in its tournament (round, index);
    ``sandbox`` is ``{"level": ..., "policy": ...}``, the level already
    decided by the coordinator (None: the worker's machine's default).
    """

    key: tuple[int, int]
    game: str
    params: dict[str, Any]
    seed: int | str
    bots: tuple[JobBot, ...]
    timeout: float = 1.0
    startup_timeout: float = 10.0
    budget: float | None = None
    transcript: str | None = None  # where the message log is written
    log_dir: str | None = None  # where the bots' stderr logs are written
    sandbox: dict[str, Any] = field(default_factory=dict)
    label: str = ""  # a name for people and the cluster's task keys: "r0-m5"
    pseudonyms: bool = False  # the bots are told per-match pseudonyms (arena._seeds.pseudonyms)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": list(self.key), "label": self.label, "game": self.game, "params": self.params,
            "seed": self.seed, "bots": [{"name": b.name, "command": b.command, **({"data": b.data} if b.data else {})}
                                        for b in self.bots],
            "timeout": self.timeout, "startup_timeout": self.startup_timeout, "budget": self.budget,
            "transcript": self.transcript, "log_dir": self.log_dir, "sandbox": self.sandbox,
            "pseudonyms": self.pseudonyms,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchJob:
        round_, idx = data["key"]
        return cls(
            key=(round_, idx), game=data["game"], params=data["params"], seed=data["seed"],
            bots=tuple(JobBot(b["name"], b["command"], b.get("data")) for b in data["bots"]),
            timeout=data.get("timeout", 1.0), startup_timeout=data.get("startup_timeout", 10.0),
            budget=data.get("budget"), transcript=data.get("transcript"), log_dir=data.get("log_dir"),
            sandbox=data.get("sandbox") or {}, label=data.get("label") or f"r{round_}-m{idx}",
            pseudonyms=bool(data.get("pseudonyms", False)),
        )


@dataclass(slots=True)
class MatchRecord:
    """One match as played (or forfeited), from whoever played it to the store.

    Lists are in seat order. ``tournament_scores`` are the game's scores as
    the match ended; ``forfeit_scores`` the same under the game's fault rule
    (None without a fault): the tournament's ``on_fault`` picks one.
    """

    key: tuple[int, int]
    completed: bool
    hands: int
    faults: list[dict[str, Any]]
    payoffs: list[int]
    time_used: list[float]
    tournament_scores: list[float]
    forfeit_scores: list[float] | None = None
    duration: float = 0.0
    exchanges: int = 0
    played_on: bool = False
    sandbox: dict[str, Any] = field(default_factory=dict)  # the host's summary: level and limits applied
    status: str = "done"  # or "forfeit": not played, an entrant in it is disqualified; or "void": the game failed
    transcript: str | None = None  # the message log's path, once it is where the store points
    log_dir: str | None = None
    worker: str | None = None  # the cluster worker that played it
    build: str | None = None  # the arena that played it (arena.cluster._build: version+code hash)
    retried: list[dict[str, str]] | None = None  # cluster workers that could not play it: {"worker", "reason"}
    #: the game's own code failed (arena/play/_guard.py), in words: the match is void, no seat blamed
    game_error: str | None = None

    @classmethod
    def of(cls, key: tuple[int, int], result: MatchResult, sandbox: dict[str, Any],
           transcript: str | None = None) -> MatchRecord:
        """The record of a match played by ``run_match`` (or ``play_on``) on a host whose summary is ``sandbox``."""
        return cls(
            key=key, completed=result.completed, hands=result.hands, faults=[f.to_json() for f in result.faults],
            payoffs=[s.payoff for s in result.seats], time_used=[round(s.time_used, 6) for s in result.seats],
            tournament_scores=list(result.tournament_scores),
            forfeit_scores=None if result.forfeit_scores is None else list(result.forfeit_scores),
            duration=round(result.duration, 6), exchanges=result.exchanges, played_on=result.played_on,
            sandbox=sandbox, transcript=transcript, log_dir=result.log_dir,
            status="void" if result.game_error else "done", game_error=result.game_error,
        )

    def to_json(self) -> dict[str, Any]:
        """The worker's answer line: ``{"key": [round, index], "result": {...}}``."""
        result = {
            "completed": self.completed, "hands": self.hands, "faults": self.faults, "payoffs": self.payoffs,
            "time_used": self.time_used, "tournament_scores": self.tournament_scores,
            "forfeit_scores": self.forfeit_scores, "duration": self.duration, "exchanges": self.exchanges,
            "played_on": self.played_on, "sandbox": self.sandbox, "status": self.status,
            "transcript": self.transcript, "log_dir": self.log_dir, "worker": self.worker,
            "build": self.build, "retried": self.retried, "game_error": self.game_error,
        }
        return {"key": list(self.key), "result": result}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchRecord:
        r = data["result"]
        round_, idx = data["key"]
        return cls(
            key=(round_, idx), completed=r["completed"], hands=r["hands"], faults=r["faults"],
            payoffs=r["payoffs"], time_used=r["time_used"], tournament_scores=r["tournament_scores"],
            forfeit_scores=r.get("forfeit_scores"), duration=r.get("duration", 0.0),
            exchanges=r.get("exchanges", 0), played_on=r.get("played_on", False), sandbox=r.get("sandbox") or {},
            status=r.get("status", "done"), transcript=r.get("transcript"), log_dir=r.get("log_dir"),
            worker=r.get("worker"), build=r.get("build"), retried=r.get("retried"), game_error=r.get("game_error"),
        )
