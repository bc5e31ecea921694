"""League ratings: every stored match of a game, across tournaments, in the
order the matches finished, rates the versions that played it (OpenSkill's
Plackett-Luce, as ``arena standings`` does for one tournament).

A faulting seat ranks below every seat of its match that did not fault, so a
fault never pays; a forfeit (a disqualified entrant's unplayed match) does
not count. Kept incrementally per game: a page asks for the table, and only
the matches stored since the last ask are rated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from openskill.models import PlackettLuce

from ..results._standings import _rate
from ..results._store import EntrantRecord, PlayedMatch
from ._db import League

Z95 = 1.96


@dataclass(slots=True)
class Played:
    """One rated match, as the pages need it."""

    match: int
    tournament: int
    versions: tuple[int, ...]  # seat order
    scores: list[float]
    faulted: list[bool]
    finished: float


class LeaderboardRow(TypedDict):
    """A version's line of its game's leaderboard."""

    version: int
    bot: int
    name: str
    number: int
    label: str
    owner: str  # the owner's name
    state: str
    paused: bool
    rating: float
    ci: float  # half the 95% interval
    low: float  # its lower end: what the board ranks by
    matches: int
    faults: int
    trend: float  # since before its latest tournament
    history: list[float]
    rank: NotRequired[int]  # set once the rows are sorted


@dataclass(slots=True)
class GameRatings:
    model: Any = field(default_factory=PlackettLuce)
    ratings: dict[int, Any] = field(default_factory=dict)  # version -> rating
    before: dict[int, float] = field(default_factory=dict)  # version -> mu before its latest tournament
    last_tournament: dict[int, int] = field(default_factory=dict)
    matches: dict[int, int] = field(default_factory=dict)
    faults: dict[int, int] = field(default_factory=dict)
    played: list[Played] = field(default_factory=list)
    #: version -> (finished, mu, sigma) after each of its rated matches, for the charts
    history: dict[int, list[tuple[float, float, float]]] = field(default_factory=dict)
    seen: tuple[float, int] = (0.0, 0)  # (finished, id) of the last match rated

    def rate(self, m: PlayedMatch, lineup: tuple[int, ...]) -> None:
        """One played match, in the order they finished: ``lineup`` is its versions in seat order."""
        tid, finished, scores = m["tournament"], m["finished"], m["scores"]
        faulted = [False] * len(lineup)
        for f in m["faults"]:
            faulted[f["seat"]] = True
        for v in lineup:
            if v not in self.ratings:
                self.ratings[v] = self.model.rating()
            if self.last_tournament.get(v) != tid:
                self.last_tournament[v] = tid
                self.before[v] = self.ratings[v].mu
            self.matches[v] = self.matches.get(v, 0) + 1
        for s, bad in enumerate(faulted):
            if bad:
                self.faults[lineup[s]] = self.faults.get(lineup[s], 0) + 1
        ratings = [self.ratings[v] for v in lineup]
        _rate(self.model, ratings, list(range(len(lineup))), scores, faulted)
        for v, r in zip(lineup, ratings):
            self.ratings[v] = r
            self.history.setdefault(v, []).append((finished, r.mu, r.sigma))
        self.played.append(Played(m["id"], tid, lineup, scores, faulted, finished))


class Ratings:
    """Per game, brought up to date from the database when asked."""

    def __init__(self, league: League) -> None:
        self.league = league
        self.games: dict[str, GameRatings] = {}
        self._entrants: dict[int, list[int | None]] = {}  # tournament -> version per entrant

    def _versions_of(self, tid: int, entrants: list[EntrantRecord]) -> list[int | None]:
        cached = self._entrants.get(tid)
        if cached is not None and None not in cached:
            return cached
        by_store_bot = {v["store_bot"]: v["id"] for v in self.league.versions("v.store_bot IS NOT NULL")}
        out = [by_store_bot.get(e["bot"]) for e in entrants]
        self._entrants[tid] = out
        return out

    def update(self, game: str) -> GameRatings:
        g = self.games.setdefault(game, GameRatings())
        # Friendlies (a person in a seat, arena.league._friendly) are never rated.
        rated = {tid: k for tid, k in self.league.tournament_kinds().items() if k[0] != "friendly"}
        for m in self.league.store.played_since(game, g.seen, tournaments=rated):
            g.seen = (m["finished"], m["id"])
            versions = self._versions_of(m["tournament"], m["entrants"])
            seated = [versions[i] for i in m["seats"]]
            lineup = tuple(v for v in seated if v is not None)
            if len(lineup) == len(seated):  # else a seat was no league version: not rated
                g.rate(m, lineup)
        return g

    def table(self, game: str) -> list[LeaderboardRow]:
        """The leaderboard: every version with a rating, best lower bound first."""
        g = self.update(game)
        versions = {v["id"]: v for v in self.league.versions("b.game=?", (game,))}
        rows = []
        for vid, r in g.ratings.items():
            v = versions.get(vid)
            if v is None:
                continue
            rows.append(LeaderboardRow(
                version=vid, bot=v["bot"], name=v["name"], number=v["number"], label=v["label"],
                owner=v["owner_name"], state=v["state"], paused=v["paused"],
                rating=r.mu, ci=Z95 * r.sigma, low=r.mu - Z95 * r.sigma,
                matches=g.matches.get(vid, 0), faults=g.faults.get(vid, 0),
                trend=r.mu - g.before.get(vid, r.mu),
                history=[round(mu, 3) for _, mu, _ in g.history.get(vid, [])[-40:]],
            ))
        # Playing versions first (retired and paused ones keep their line below).
        rows.sort(key=lambda row: (row["state"] != "active" or row["paused"], -row["low"], row["label"]))
        for i, row in enumerate(rows, 1):
            row["rank"] = i
        return rows

    def head_to_head(self, game: str, vid: int) -> list[dict[str, Any]]:
        """``vid`` against each version it met: matches, wins/losses/draws by score, mean score."""
        g = self.update(game)
        labels = {v["id"]: v["label"] for v in self.league.versions("b.game=?", (game,))}
        acc: dict[int, list[tuple[float, float]]] = {}
        for p in g.played:
            if vid not in p.versions:
                continue
            me = p.versions.index(vid)
            for s, other in enumerate(p.versions):
                if other != vid:
                    acc.setdefault(other, []).append((p.scores[me], p.scores[s]))
        rows = []
        for other, results in sorted(acc.items(), key=lambda kv: labels.get(kv[0], "")):
            rows.append({
                "version": other, "label": labels.get(other, f"v{other}"), "matches": len(results),
                "wins": sum(a > b for a, b in results), "losses": sum(a < b for a, b in results),
                "draws": sum(a == b for a, b in results),
                "mean": sum(a for a, _ in results) / len(results),
            })
        return rows

