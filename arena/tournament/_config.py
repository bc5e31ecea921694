"""A tournament's options in one typed shape: what is planned, what is stored
(``to_dict``, versioned) and what a resume reads back (``from_dict``) are the
same ``TournamentConfig``."""

from __future__ import annotations

from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Literal

from protocols import GamePlugin

from .._checks import UsageError
from .._scoring import forfeit_scores
from .._seeds import chance_stream
from .._spec import BotSpec
from ..sandbox import SandboxPolicy
from ._schedule import Pairing, sample_sets, schedule

FAULT_RULES = ("forfeit", "score-so-far")

#: The shape of ``TournamentConfig.to_dict``. Version 1 (the settings of
#: arenas before the version was written) has the same keys, without it.
CONFIG_VERSION = 2

#: Keys of ``to_dict`` the store keeps in columns of their own (the rest is its ``settings``).
COLUMNS: tuple[Literal["game", "params", "seed", "rounds", "lifetime"], ...] = (
    "game", "params", "seed", "rounds", "lifetime")


@dataclass(slots=True)
class TournamentConfig:
    """Every option of one tournament. Build it with ``plan_tournament`` (which
    checks every option) or directly; ``to_dict``/``from_dict`` are what the
    store keeps, so a resume plays on with exactly the options it began with.

    ``jobs`` and ``cluster`` say where the matches run, not what they are.
    ``jobs`` is stored, so that a resume plays as many at once as the run it
    continues (a resume may give another); ``cluster`` is not: a resume names
    the cluster it plays on, if any.
    """

    game: str
    params: dict[str, Any]
    bots: list[BotSpec]  # one per entrant, named
    seed: str
    rounds: int = 1
    jobs: int = 1
    seats: int = 0  # bots per match (0: the game's most)
    rotations: bool = False  # seatings are rotations only (the game's ``seatings``)
    lifetime: str = "match"
    timeout: float = 1.0
    startup_timeout: float = 10.0
    budget: float | None = None
    sandbox: str | None = None  # a level of arena.sandbox; None: this machine's default, decided at the start
    policy: SandboxPolicy = field(default_factory=SandboxPolicy)
    on_fault: str = "forfeit"  # or "score-so-far"
    max_faults: int | None = None  # disqualified at this many faults
    broken_start: int | None = None  # disqualified when its first this many matches all faulted
    duplicate: bool = False
    gauntlet: int | None = None  # the candidate's entrant index
    until_ci: float | None = None  # stop once every CI half-width is at most this
    sprt: dict[str, Any] | None = None  # two entrants: stop when the SPRT decides (arena.results._sprt.Sprt)
    sample: int | None = None  # at most this many matches a round (whole sets of entrants, chosen by the seed)
    unplayed: float = 0.0  # a disqualified entrant's score in a match it does not play
    cluster: str | None = None  # a Dask scheduler's address: matches run there (not stored: a run option)
    cluster_certs: Path | None = None  # the cluster's certificates (arena cluster init-certs), for tls://
    pseudonyms: bool = False  # bots are told per-match pseudonyms, not the entrants' names (a league's)
    #: a group per entrant (a league's owners): no table seats two of one group
    apart: tuple[int, ...] | None = None
    data_mb: int | None = None  # each entrant's data folder, MB (arena.tournament._data); None: none
    keep_data: str | None = None  # where the data folders are copied at the end; None: removed

    def sandbox_job(self) -> dict[str, Any]:
        return {"level": self.sandbox, "policy": self.policy.to_json()}

    def seat_for(self, plugin: GamePlugin[Any]) -> None:
        """Take the game's table size (unless given) and way of seating."""
        self.seats = self.seats or plugin.spec.max_seats
        self.rotations = plugin.seatings == "rotations"

    def pairings(self, rounds: int | None = None, first_round: int = 0) -> list[Pairing]:
        chosen = schedule(len(self.bots), self.seats, self.rounds if rounds is None else rounds, self.seed,
                          duplicate=self.duplicate, gauntlet=self.gauntlet, first_round=first_round,
                          rotations=self.rotations, apart=self.apart)
        return chosen if self.sample is None else sample_sets(chosen, self.sample, self.seed)

    def names(self) -> list[str]:
        return [b.name for b in self.bots]

    def to_dict(self) -> dict[str, Any]:
        """What the store keeps (JSON): every option a resume restores, and the version of this shape.

        The entrants are not in it (the store keeps them, with their files'
        digests); the gauntlet is named, not numbered.
        """
        return {
            "version": CONFIG_VERSION,
            "game": self.game, "params": self.params, "seed": self.seed, "rounds": self.rounds,
            "lifetime": self.lifetime, "seats": self.seats, "timeout": self.timeout,
            "startup_timeout": self.startup_timeout, "budget": self.budget, "sandbox": self.sandbox,
            "policy": self.policy.to_json(), "on_fault": self.on_fault, "max_faults": self.max_faults,
            "broken_start": self.broken_start, "duplicate": self.duplicate,
            "gauntlet": None if self.gauntlet is None else self.bots[self.gauntlet].name,
            "until_ci": self.until_ci, "sample": self.sample, "unplayed": self.unplayed, "jobs": self.jobs,
            **({"sprt": self.sprt} if self.sprt else {}),
            # Written only when set, so that other tournaments store what they always did.
            **({"pseudonyms": True} if self.pseudonyms else {}),
            **({"apart": list(self.apart)} if self.apart is not None else {}),
            **({"data_mb": self.data_mb, "keep_data": self.keep_data} if self.data_mb is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], bots: list[BotSpec], *, jobs: int | None = None,
                  cluster: str | None = None) -> TournamentConfig:
        """The config ``to_dict`` wrote (any version up to this arena's), with its entrants ``bots``;
        ``jobs``: as stored (1 where none was) unless given."""
        version = data.get("version", 1)
        if not isinstance(version, int) or version > CONFIG_VERSION:
            raise UsageError(f"this tournament's options were stored by a newer arena (version {version}; "
                             f"this one reads up to {CONFIG_VERSION}): resume it with that arena")
        names = [b.name for b in bots]
        gauntlet = data.get("gauntlet")
        if gauntlet is not None and gauntlet not in names:
            raise UsageError(f"the stored gauntlet entrant {gauntlet!r} is not an entrant")
        return cls(
            game=data["game"], params=data["params"], bots=list(bots), seed=data["seed"], rounds=data["rounds"],
            jobs=jobs if jobs is not None else int(data.get("jobs") or 1), lifetime=data["lifetime"],
            seats=data.get("seats", 0),
            timeout=data.get("timeout", 1.0), startup_timeout=data.get("startup_timeout", 10.0),
            budget=data.get("budget"), sandbox=data.get("sandbox"),
            policy=SandboxPolicy.from_json(data.get("policy")), on_fault=data.get("on_fault", "forfeit"),
            max_faults=data.get("max_faults"), broken_start=data.get("broken_start"),
            duplicate=bool(data.get("duplicate")), gauntlet=None if gauntlet is None else names.index(gauntlet),
            until_ci=data.get("until_ci"), sample=data.get("sample"), unplayed=data.get("unplayed", 0.0),
            sprt=data.get("sprt"),
            cluster=cluster, pseudonyms=bool(data.get("pseudonyms", False)),
            apart=tuple(data["apart"]) if data.get("apart") is not None else None,
            data_mb=data.get("data_mb"), keep_data=data.get("keep_data"),
        )


def unplayed_score(plugin: GamePlugin[Any], params: Any) -> float:
    """What a disqualified entrant scores in a match it does not play: its
    game's fault rule applied before the first hand."""
    dealer = plugin.open_dialogue(params, chance_stream(0), [f"seat{i}" for i in range(plugin.spec.max_seats)], 0)
    return forfeit_scores(dealer, [0])[0]
