"""The one statistic of the benches' side-by-side ratios.

Two sides of one run are measured seconds apart; the VM's speed drifts by a
third over the minutes of a bench. A ratio of the two sides' medians can pair
a quick run's figure with a slow one's, so a ratio is the median of the runs'
own ratios, and the ratio of the medians is printed beside it for reference.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable


def paired(runs: dict[str, list[float]], ratios: Callable[[dict[str, float]], dict[str, float]]
           ) -> tuple[dict[str, float], list[dict[str, float]], dict[str, float]]:
    """(the median of each ratio over the runs, each run's ratios, the ratios of the medians)."""
    count = len(next(iter(runs.values())))
    per_run = [ratios({k: v[i] for k, v in runs.items()}) for i in range(count)]
    medians = {k: statistics.median(v) for k, v in runs.items()}
    return {k: statistics.median(r[k] for r in per_run) for k in per_run[0]}, per_run, ratios(medians)
