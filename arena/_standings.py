"""Standings of a tournament from its stored matches (pure: no I/O)."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from typing import Any

from openskill.models import PlackettLuce

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


def compute_standings(names: list[str], matches: list[dict[str, Any]]) -> dict[str, Any]:
    """``matches``: records with ``seats`` (entrant indices in seat order), ``scores``,
    ``faults`` (each with ``seat`` and ``kind``), in schedule order."""
    n = len(names)
    scores: list[list[float]] = [[] for _ in range(n)]
    faults: list[Counter] = [Counter() for _ in range(n)]
    versus: dict[tuple[int, int], list[float]] = {}
    model = PlackettLuce()
    ratings = [model.rating(name=str(i)) for i in range(n)]
    for match in matches:
        seats, match_scores = match["seats"], match["scores"]
        for seat, who in enumerate(seats):
            scores[who].append(match_scores[seat])
            for other in seats:
                if other != who:
                    versus.setdefault((who, other), []).append(match_scores[seat])
        for fault in match["faults"]:
            faults[seats[fault["seat"]]][fault["kind"]] += 1
        # Ratings see every match in schedule order, so they do not depend on
        # which match finished first.
        if len(set(seats)) == len(seats):
            teams = [[ratings[who]] for who in seats]
            rated = model.rate(teams, scores=list(match_scores))
            for who, team in zip(seats, rated):
                ratings[who] = team[0]
    rows = []
    for i, name in enumerate(names):
        mean, low, high = mean_ci(scores[i])
        rows.append({
            "bot": name,
            "score": sum(scores[i]),
            "mean": mean,
            "ci_low": low,
            "ci_high": high,
            "matches": len(scores[i]),
            "faults": dict(sorted(faults[i].items())),
            "rating": ratings[i].ordinal(),
            "rating_mu": ratings[i].mu,
            "rating_sigma": ratings[i].sigma,
        })
    order = sorted(range(n), key=lambda i: (-rows[i]["score"], names[i]))
    cross = {
        names[a]: {names[b]: statistics.fmean(v) for (x, b), v in sorted(versus.items()) if x == a}
        for a in range(n)
    }
    return {"standings": [rows[i] for i in order], "cross_table": cross}
