"""Standings of a tournament from its stored matches (pure: no I/O)."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal, NotRequired, TypedDict

from openskill.models import PlackettLuce

from .._scoring import poker_rates
from ._store import MatchRecord

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom; beyond
# that the normal 1.96 is within 2%.
_T975 = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
]


def t975(df: int) -> float:
    return _T975[df - 1] if 1 <= df <= len(_T975) else 1.96


def mean_ci(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% confidence interval (Student's t; a single value has none)."""
    if not values:
        return 0.0, 0.0, 0.0
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, -math.inf, math.inf
    half = t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def grouped_ci(values: list[float], keys: list[Any]) -> tuple[float, float, float]:
    """Mean per match, with the 95% interval of the mean taken over groups of
    matches that are not independent (the seatings of one duplicate deal):
    each group counts as one observation, its mean."""
    if not values:
        return 0.0, 0.0, 0.0
    mean = statistics.fmean(values)
    _, low, high = mean_ci(group_means(values, keys))
    half = (high - low) / 2
    return mean, mean - half, mean + half


def group_means(values: list[float], keys: list[Any]) -> list[float]:
    """The mean of each group of ``values`` sharing a key, in the order the keys first come."""
    groups: dict[Any, list[float]] = {}
    for value, key in zip(values, keys):
        groups.setdefault(key, []).append(value)
    return [statistics.fmean(g) for g in groups.values()]


#: an entrant whose first this many matches all fault is disqualified (``--broken-start``)
BROKEN_START = 3


class Disqualification:
    """The one rule for when an entrant is out of a tournament: at its
    ``max_faults``-th fault, or once its first ``broken_start`` matches have
    all faulted (a bot broken from the start must not cancel every table).
    ``None`` (or 0) turns either part off."""

    def __init__(self, entrants: int, max_faults: int | None, broken_start: int | None) -> None:
        self.max_faults, self.broken_start = max_faults or None, broken_start or None
        self.faults = [0] * entrants
        self.matches = [0] * entrants
        self.faulted_matches = [0] * entrants
        self.out = [False] * entrants

    def add(self, seats: list[int], faulted_seats: set[int]) -> list[int]:
        """One match of ``seats`` (entrants); returns who it puts out."""
        newly = []
        for seat, who in enumerate(seats):
            self.matches[who] += 1
            if seat in faulted_seats:
                self.faults[who] += 1
                self.faulted_matches[who] += 1
            if self.out[who]:
                continue
            if ((self.max_faults is not None and self.faults[who] >= self.max_faults)
                    or (self.broken_start is not None and self.matches[who] == self.broken_start
                        and self.faulted_matches[who] == self.broken_start)):
                self.out[who] = True
                newly.append(who)
        return newly

    def describe(self, usual_start: int | None = None) -> list[str]:
        """The rule in words, leaving out a ``broken_start`` of ``usual_start`` (the default)."""
        words = []
        if self.max_faults:
            words.append(f"disqualified at {self.max_faults} fault{'s' if self.max_faults > 1 else ''}")
        if self.broken_start != usual_start:
            words.append(f"disqualified if its first {self.broken_start} matches all fault" if self.broken_start
                         else "never disqualified for faulting from the start")
        return words


class StandingRow(TypedDict):
    """One entrant's line of the standings."""

    bot: str
    score: float
    mean: float
    ci_low: float
    ci_high: float
    matches: int
    faults: dict[str, int]  # by kind
    forfeits: int
    disqualified: bool
    rating: float
    rating_mu: float
    rating_sigma: float
    #: poker's rates of ``score`` over the hands of its matches (None: the game has no big blind)
    mbb_per_game: float | None
    bb_per_100: float | None


class HeadToHeadRow(TypedDict):
    """One ordered pair of entrants; the Elo keys only in a two-seat game."""

    bot: str
    opponent: str
    matches: int
    wins: int
    losses: int
    draws: int
    mean: float
    ci_low: float
    ci_high: float
    margin: float
    margin_low: float
    margin_high: float
    elo: NotRequired[float | None]
    elo_error: NotRequired[float | None]
    los: NotRequired[float]
    #: a poker game's: the likelihood that the first wins more chips than the other over time (normal model
    #: of the margin per match, or per deal with duplicate seatings), where ``los`` counts match wins
    los_chips: NotRequired[float | None]


class Standings(TypedDict):
    standings: list[StandingRow]  # best first
    ranked_by: Literal["mean", "score"]
    cross_table: dict[str, dict[str, float]]
    cross_table_measure: Literal["margin", "mean"]
    seats: int
    head_to_head: list[HeadToHeadRow]


def compute_standings(
    names: list[str], matches: Sequence[MatchRecord], *, max_faults: int | None = None,
    broken_start: int | None = None, unplayed: float = 0.0, duplicate: bool = False,
    big_blind: float | None = None,
) -> Standings:
    """Standings, cross-table and head-to-head from stored matches.

    ``matches``: records in schedule order with ``seats`` (entrant indices in
    seat order), ``scores`` (fault rule applied), ``faults`` (each with
    ``seat`` and ``kind``) and ``status`` ("done", "forfeit", or "void": the
    game's own code failed in it, and it counts for nobody).

    The rules, applied in schedule order so that the result does not depend
    on which match finished first:

    * for the rating, a seat that faulted ranks below every seat of its match
      that did not; the others rank by score;
    * an entrant is disqualified by ``Disqualification`` (its ``max_faults``-th
      fault, or its first ``broken_start`` matches all faulted): every later
      match of its counts as a forfeit, ``unplayed`` for it and a win over it
      for the rating, and does not count for the others' scores (whether or
      not it was played before the disqualification was known);
    * entrants are ranked by total score when all played the same number of
      matches, else by mean score per match (``ranked_by``).

    With ``duplicate``, the seatings of one set of entrants in a round share
    their cards, so their scores are not independent: a 95% interval takes
    each such set as one observation (the reason duplicate deals narrow it).

    ``big_blind``: the scores are chips won over each match's ``hands``, and
    each row gets its rates in big blinds (mbb/g, bb/100: ``poker_rates``).
    """
    tally = _Tally(len(names), Disqualification(len(names), max_faults, broken_start), unplayed, duplicate)
    for position, match in enumerate(matches):
        tally.add(match, position)
    rows = tally.rows(names, big_blind)
    # Disqualified entrants last; then by score, or by mean per match when
    # entrants played different numbers of matches (a total would reward the busier).
    by_mean = len({r["matches"] for r in rows if not r["disqualified"]}) > 1
    key: Literal["mean", "score"] = "mean" if by_mean else "score"
    order = sorted(range(len(names)), key=lambda i: (rows[i]["disqualified"], -rows[i][key], names[i]))
    # With more than two seats, the row's own mean is the same whoever the
    # column is (everyone meets everyone); the mean margin over the column in
    # their shared matches is what tells opponents apart. Every seating is
    # scheduled alike, so seat positions weigh the same in every pair.
    margin = tally.seats > 2
    cross = {
        names[a]: {names[b]: statistics.fmean((x - y) if margin else x for x, y, _ in v)
                   for (x_, b), v in sorted(tally.pairs.items()) if x_ == a}
        for a in range(len(names))
    }
    return Standings(standings=[rows[i] for i in order], ranked_by=key, cross_table=cross,
                     cross_table_measure="margin" if margin else "mean", seats=tally.seats,
                     head_to_head=head_to_head(names, tally.pairs, elo=tally.seats == 2, paired=duplicate,
                                               chips=big_blind is not None))


class _Tally:
    """Every entrant's scores, faults and rating, match by match in schedule order."""

    def __init__(self, n: int, rule: Disqualification, unplayed: float, duplicate: bool) -> None:
        self.rule, self.unplayed, self.duplicate = rule, unplayed, duplicate
        self.scores: list[list[float]] = [[] for _ in range(n)]
        self.keys: list[list[Any]] = [[] for _ in range(n)]  # each score's group (see grouped_ci)
        self.faults: list[Counter] = [Counter() for _ in range(n)]
        self.disqualified_at: list[int | None] = [None] * n  # the schedule position of the deciding fault
        self.forfeits = [0] * n
        self.hands = [0] * n  # hands played in the matches that count (a forfeit's: none)
        self.pairs: dict[tuple[int, int], list[tuple[float, float, Any]]] = {}
        self.seats = 0  # the most seats of a match
        self.model = PlackettLuce()
        self.ratings = [self.model.rating(name=str(i)) for i in range(n)]

    def add(self, match: MatchRecord, position: int) -> None:
        if match.get("status") == "void":
            return  # the game failed in it: nobody played it out, nobody is judged by it
        seats = match["seats"]
        self.seats = max(self.seats, len(seats))
        out = [who for who in seats if self.disqualified_at[who] is not None]
        if out or match.get("status") == "forfeit":
            self._forfeit(match, position, out or [w for w in seats if self.rule.out[w]])
        else:
            self._played(match, position)

    def _forfeit(self, match: MatchRecord, position: int, out: list[int]) -> None:
        seats = match["seats"]
        for who in out:
            self.scores[who].append(self.unplayed)
            self.keys[who].append(_group(match, position, self.duplicate))
            self.forfeits[who] += 1
        _rate(self.model, self.ratings, seats, [0.0] * len(seats), [who in out for who in seats])

    def _played(self, match: MatchRecord, position: int) -> None:
        seats, match_scores = match["seats"], match["scores"]
        group = _group(match, position, self.duplicate)
        faulted = [False] * len(seats)
        for fault in match["faults"]:
            who = seats[fault["seat"]]
            faulted[fault["seat"]] = True
            self.faults[who][fault["kind"]] += 1
        for who in self.rule.add(seats, {s for s, f in enumerate(faulted) if f}):
            self.disqualified_at[who] = position
        for seat, who in enumerate(seats):
            self.scores[who].append(match_scores[seat])
            self.keys[who].append(group)
            self.hands[who] += match.get("hands") or 0
            for other_seat, other in enumerate(seats):
                if other != who:
                    self.pairs.setdefault((who, other), []).append(
                        (match_scores[seat], match_scores[other_seat], group))
        _rate(self.model, self.ratings, seats, match_scores, faulted)

    def rows(self, names: list[str], big_blind: float | None) -> list[StandingRow]:
        rows = []
        for i, name in enumerate(names):
            mean, low, high = grouped_ci(self.scores[i], self.keys[i])
            rating = self.ratings[i]
            rates = poker_rates(sum(self.scores[i]) / big_blind, self.hands[i]) if big_blind else None
            rows.append(StandingRow(
                bot=name, score=sum(self.scores[i]), mean=mean, ci_low=low, ci_high=high,
                matches=len(self.scores[i]), faults=dict(sorted(self.faults[i].items())),
                forfeits=self.forfeits[i], disqualified=self.disqualified_at[i] is not None,
                rating=rating.ordinal(), rating_mu=rating.mu, rating_sigma=rating.sigma,
                mbb_per_game=rates["mbb_per_game"] if rates else None,
                bb_per_100=rates["bb_per_100"] if rates else None,
            ))
        return rows


def _rate(model: Any, ratings: list[Any], seats: list[int], match_scores: list[float],
          faulted: list[bool]) -> None:
    """One match for the ratings: faulting seats below all others, the rest by score."""
    if len(set(seats)) != len(seats):
        return
    clean = sorted({-match_scores[s] for s in range(len(seats)) if not faulted[s]})
    last = len(clean)
    ranks = [last if faulted[s] else clean.index(-match_scores[s]) for s in range(len(seats))]
    rated = model.rate([[ratings[who]] for who in seats], ranks=ranks)
    for who, team in zip(seats, rated):
        ratings[who] = team[0]


def _group(match: MatchRecord, position: int, duplicate: bool) -> Any:
    """The matches that share one deal: every seating of the same entrants in
    a round with --duplicate; otherwise each match alone."""
    return (match["round"], tuple(sorted(match["seats"]))) if duplicate else position


def head_to_head(names: list[str], pairs: dict[tuple[int, int], list[tuple[float, float, Any]]], *,
                 elo: bool = False, paired: bool = False, chips: bool = False) -> list[HeadToHeadRow]:
    """Per ordered pair of entrants: their shared matches, wins/losses/draws by
    score, the first one's mean score and its mean margin over the other
    (its score minus the other's), each with a 95% interval. With ``elo``
    (two-seat games), the Elo difference with its 95% interval and the
    likelihood of superiority, as chess testers count them (arena.results._sprt;
    ``paired``: from the pentanomial counts of duplicate deals)."""
    from ._sprt import elo as elo_of, tally

    rows = []
    for (a, b), results in sorted(pairs.items()):
        keys = [k for _, _, k in results]
        mean, low, high = grouped_ci([x for x, _, _ in results], keys)
        margin, m_low, m_high = grouped_ci([x - y for x, y, _ in results], keys)
        row = HeadToHeadRow(
            bot=names[a], opponent=names[b], matches=len(results),
            wins=sum(x > y for x, y, _ in results), losses=sum(x < y for x, y, _ in results),
            draws=sum(x == y for x, y, _ in results),
            mean=mean, ci_low=low, ci_high=high,
            margin=margin, margin_low=m_low, margin_high=m_high,
        )
        found = elo_of(tally(results, paired=paired)) if elo else None
        if found is not None:  # (last, as the JSON has always listed them)
            row["elo"], row["elo_error"], row["los"] = _finite(found.diff), _finite(found.error), found.los
        if chips and elo:
            row["los_chips"] = margin_los([x - y for x, y, _ in results], keys)
        rows.append(row)
    return rows


def margin_los(margins: list[float], keys: list[Any]) -> float | None:
    """The likelihood of superiority in chips: P(the mean margin is above 0) under a normal
    model of the margin per group of matches (``grouped_ci``'s groups); None with under two groups."""
    means = group_means(margins, keys)
    if len(means) < 2:
        return None
    error = statistics.stdev(means) / math.sqrt(len(means))
    mean = statistics.fmean(means)
    if error == 0:
        return 1.0 if mean > 0 else 0.0 if mean < 0 else 0.5
    return 0.5 * (1 + math.erf(mean / error / math.sqrt(2)))


def _finite(x: float) -> float | None:
    """JSON has no infinity: an Elo that is (a clean sweep) is None."""
    return x if math.isfinite(x) else None
