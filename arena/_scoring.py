"""What a match is worth in a tournament, and what a fault costs.

A game's dealer may define:

* ``tournament_scores()``: each seat's score for the tournament (default:
  the game's own ``scores()``); kuhn3, for one, ranks by chips won;
* ``forfeit(seat)``: the same scores when ``seat`` has faulted, by the game's
  fault rule: the faulting seat's score is never better than the worst
  outcome it could have had by playing on legally; the other seats keep
  theirs. The rule of each game is on its rules page.

A game that defines no ``forfeit`` gets the arena's rule: the faulting seat
scores no better than the lowest score of the match.
"""

from __future__ import annotations

from typing import Any


def tournament_scores(dealer: Any) -> list[float]:
    scores = getattr(dealer, "tournament_scores", None)
    return [float(x) for x in (scores() if scores is not None else dealer.scores())]


def forfeit_scores(dealer: Any, seats: list[int]) -> list[float]:
    """The scores when every seat of ``seats`` faulted (usually one)."""
    scores = tournament_scores(dealer)
    rule = getattr(dealer, "forfeit", None)
    for seat in seats:
        if rule is not None:
            scores[seat] = float(rule(seat)[seat])
        else:
            scores[seat] = min(scores[seat], min(scores))
    return scores
