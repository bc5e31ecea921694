"""Checks of what a user typed: one sentence naming the option, the value and
the accepted range, raised as ``UsageError`` (the CLI exits 2 with it)."""

from __future__ import annotations

import math


class UsageError(ValueError):
    """Bad input from the user; nothing was started."""


def check_range(
    option: str, value: float | int | None, low: float, high: float, *,
    low_open: bool = False, optional: bool = False,
) -> None:
    """``value`` must be a finite number in [low, high] ((low, high] with ``low_open``)."""
    if value is None:
        if optional:
            return
        raise UsageError(f"{option} needs a value")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{option} must be a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"{option} must be a finite number, got {value}")
    below = value <= low if low_open else value < low
    if below or value > high:
        left = "above" if low_open else "at least"
        raise UsageError(f"{option} must be {left} {low:g} and at most {high:g}, got {value:g}")
