"""One run of a tournament: what every back-end shares (``TournamentRun``).

A back-end (``arena.tournament._executors``) asks ``start`` before it plays
a match (a match with a disqualified entrant is stored as a forfeit there,
and not played), builds its job with ``job``, and hands every match it
played to ``finish``, which stores it and updates the disqualifications and
the progress. Nothing else touches the store during play.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocols import GamePlugin

from ..cluster._build import build
from ..play._jobs import JobBot, MatchJob, MatchRecord
from ..results._standings import Disqualification
from ..results._store import Store
from ._config import TournamentConfig
from ._schedule import Pairing


@dataclass(slots=True)
class Progress:
    """What the coordinator reports as matches start and finish.

    ``on_start(match_id, pairing, names)`` and ``on_finish(match_id,
    pairing, names, record)`` are called on the coordinator's side, ``record``
    a ``MatchRecord``; ``on_note(text)`` for what an organiser should know
    while the run goes on (a match played again on another cluster worker). A forfeit (a match with a disqualified entrant, not
    played) counts in ``done`` without either call.
    """

    total: int = 0
    done: int = 0
    faults: int = 0
    started_at: float = field(default_factory=time.perf_counter)
    on_start: Callable[[int, Pairing, list[str]], None] | None = None
    on_finish: Callable[[int, Pairing, list[str], MatchRecord], None] | None = None
    on_note: Callable[[str], None] | None = None


@dataclass(slots=True)
class TournamentRun:
    """Tournament ``tid`` of ``store`` being played with ``config``.

    ``disqualified`` judges faults in the order results arrive, to stop
    launching a disqualified entrant's matches; the standings judge again in
    schedule order.
    """

    plugin: GamePlugin[Any]
    config: TournamentConfig
    store: Store
    tid: int
    progress: Progress
    disqualified: Disqualification
    ids: dict[tuple[int, int], int] = field(default_factory=dict)  # match ids by (round, index)
    #: This coordinator's arena (version+code hash): the build of a match played here.
    local_build: str = field(default_factory=build)

    @classmethod
    def open(cls, plugin: GamePlugin[Any], config: TournamentConfig, store: Store, tid: int,
             progress: Progress) -> TournamentRun:
        rule = Disqualification(len(config.bots), config.max_faults, config.broken_start)
        for m in store.matches(tid):
            if m["status"] != "forfeit":
                rule.add(list(m["seats"]), {f["seat"] for f in m["faults"]})
        return cls(plugin, config, store, tid, progress, rule)

    @property
    def data(self) -> Path:
        """The tournament's folder of transcripts and stderr logs."""
        return self.store.data_dir / f"t{self.tid}"

    def names(self, p: Pairing) -> list[str]:
        return [self.config.bots[i].name for i in p.seats]

    def transcript_path(self, p: Pairing) -> Path:
        return self.data / "transcripts" / f"r{p.round}-m{p.idx}.log.gz"

    def schedule(self, pairings: list[Pairing]) -> list[Pairing]:
        """``pairings`` written to the store (each gets its id); those not yet stored as played."""
        self.store.schedule(self.tid, pairings)
        self.ids.update(self.store.match_ids(self.tid))
        done = self.store.done_positions(self.tid)
        return [p for p in pairings if (p.round, p.idx) not in done]

    def start(self, p: Pairing) -> bool:
        """Whether to play ``p`` now. If not, an entrant in it is disqualified and it is stored as a forfeit."""
        out = [s for s, who in enumerate(p.seats) if self.disqualified.out[who]]
        if out:
            n = len(p.seats)
            forfeit = MatchRecord(
                key=(p.round, p.idx), completed=False, hands=0, faults=[], payoffs=[0] * n, time_used=[0.0] * n,
                tournament_scores=[self.config.unplayed if s in out else 0.0 for s in range(n)],
                status="forfeit", sandbox={"level": "none"},  # not played: no sandbox was applied
            )
            self.store.add_match(self.tid, self._row(p, forfeit))
            self.progress.done += 1
            return False
        if self.progress.on_start is not None:
            self.progress.on_start(self.ids[(p.round, p.idx)], p, self.names(p))
        return True

    def job(self, p: Pairing) -> MatchJob:
        """``p`` as a job for a worker process (here or on the cluster)."""
        label = f"r{p.round}-m{p.idx}"
        c = self.config
        return MatchJob(
            key=(p.round, p.idx), label=label, game=self.plugin.spec.id, params=c.params, seed=p.seed,
            bots=tuple(JobBot(c.bots[i].name, c.bots[i].command, c.bots[i].data) for i in p.seats),
            timeout=c.timeout, startup_timeout=c.startup_timeout, budget=c.budget,
            transcript=str(self.transcript_path(p)), log_dir=str(self.data / "logs" / label),
            sandbox=c.sandbox_job(), pseudonyms=c.pseudonyms,
        )

    def finish(self, p: Pairing, record: MatchRecord) -> None:
        """A match played: stored, its faults judged, the progress told."""
        self.store.add_match(self.tid, self._row(p, record))
        self.disqualified.add(list(p.seats), {f["seat"] for f in record.faults})
        self.progress.done += 1
        self.progress.faults += len(record.faults)
        if self.progress.on_finish is not None:
            self.progress.on_finish(self.ids[(p.round, p.idx)], p, self.names(p), record)

    def _row(self, p: Pairing, record: MatchRecord) -> dict[str, Any]:
        """The store's row of a match: the scores under the tournament's fault rule."""
        faulted = bool(record.faults) and record.forfeit_scores is not None
        by_rule = faulted and self.config.on_fault == "forfeit"
        row = {
            "round": p.round,
            "idx": p.idx,
            "seats": list(p.seats),
            "seed": p.seed,
            "completed": record.completed,
            "hands": record.hands,
            "scores": record.forfeit_scores if by_rule else record.tournament_scores,
            "payoffs": record.payoffs,
            "faults": record.faults,
            "timings": {
                "duration": record.duration,
                "exchanges": record.exchanges,
                "time_used": record.time_used,
                "sandbox": record.sandbox,
                "scores_so_far": record.tournament_scores,
                **({"worker": record.worker} if record.worker is not None else {}),
                **({"retried": record.retried} if record.retried else {}),
                **({"game_error": record.game_error} if record.game_error else {}),
            },
            "transcript": record.transcript,
            "log_dir": record.log_dir,
            "worker": record.worker,
            "build": record.build or (self.local_build if record.status == "done" else None),
        }
        if record.status != "done":
            row["status"] = record.status
        return row
