"""The arena refuses a fault rule that would pay the faulting seat more
than it had (arena/_scoring.py, the one place a fault is scored)."""

from __future__ import annotations

import random

from arena._scoring import forfeit_scores, match_scores

from .bluff import BluffMatch, BluffParams
from .bluff_planted import RewardingMatch


def _played(match_class: type[BluffMatch]) -> BluffMatch:
    match = match_class(BluffParams(hands=4), random.Random(1), ["a", "b"], 0)
    match.points = [3, -3]
    match.played = 3
    return match


def test_a_fault_rule_that_pays_is_replaced_by_the_arenas():
    # the game would give seat 0 103; the arena's rule: the lowest score of the match
    assert forfeit_scores(_played(RewardingMatch), [0]) == [-3.0, -3.0]
    assert match_scores(_played(RewardingMatch), [0]) == [-3.0, -3.0]


def test_a_sound_fault_rule_is_applied_as_the_game_says():
    # bluff's rule: minus (seats - 1) per hand not finished
    assert forfeit_scores(_played(BluffMatch), [0]) == [2.0, -3.0]
    assert match_scores(_played(BluffMatch), []) == [3.0, -3.0]
