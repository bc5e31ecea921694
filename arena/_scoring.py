"""What a match is worth in a tournament, and what a fault costs.

A game's dealer may define:

* ``tournament_scores()``: each seat's score for the tournament (default:
  the game's own ``scores()``); a poker game may rank by chips won;
* ``forfeit(seat)``: the same scores when ``seat`` has faulted, by the game's
  fault rule: the faulting seat's score is never better than the worst
  outcome it could have had by playing on legally; the other seats keep
  theirs. The rule of each game is on its rules page.

A game that defines no ``forfeit`` gets the arena's rule: the faulting seat
scores no better than the lowest score of the match. The arena refuses a
game's rule that would pay the faulting seat more than its score so far
(no legal continuation is worse for it than keeping what it has and losing
nothing more, so such a rule lets a fault beat playing on): the arena's
rule applies instead. ``arena check-game`` finds such a rule before it
runs ("fault never pays"). This module is the one place a fault is scored:
single matches, series and tournaments all ask ``forfeit_scores``.

Poker's rates of a sum of chips (``poker_rates``: mbb/g, bb/100) are here
too, so that a match's table and the standings count them alike.
"""

from __future__ import annotations

import math
from typing import Any, TypedDict


def tournament_scores(dealer: Any) -> list[float]:
    scores = getattr(dealer, "tournament_scores", None)
    return [float(x) for x in (scores() if scores is not None else dealer.scores())]


def forfeit_scores(dealer: Any, seats: list[int]) -> list[float]:
    """The scores when every seat of ``seats`` faulted (usually one)."""
    scores = tournament_scores(dealer)
    rule = getattr(dealer, "forfeit", None)
    so_far = list(scores)
    for seat in seats:
        claimed = float(rule(seat)[seat]) if rule is not None else math.nan
        if math.isfinite(claimed) and claimed <= so_far[seat]:
            scores[seat] = claimed
        else:  # no rule, or one that would make the fault pay: the arena's
            scores[seat] = min(so_far[seat], min(so_far))
    return scores


def match_scores(dealer: Any, faulted: list[int]) -> list[float]:
    """Each seat's score for a single match: the game's own ``scores()``, with
    the fault rule applied to the seats of ``faulted``. A game that ranks
    tournaments on another scale than its match score (chips, not
    chips per root hand) has its fault rule on that scale, so its match
    scores are left as they are (the fault's scores are ``forfeit_scores``)."""
    if not faulted or getattr(dealer, "tournament_scores", None) is not None:
        return [float(x) for x in dealer.scores()]
    return forfeit_scores(dealer, faulted)


class Rates(TypedDict):
    """Poker's per-hand rates of a sum won, in big blinds."""

    mbb_per_game: float  # thousandths of a big blind a hand (the ACPC's unit)
    bb_per_100: float  # big blinds per hundred hands (players' and trackers' unit)


def poker_rates(big_blinds_won: float, hands: int) -> Rates | None:
    """The rates of ``big_blinds_won`` over ``hands`` (None without a hand)."""
    if hands <= 0:
        return None
    return Rates(mbb_per_game=1000 * big_blinds_won / hands, bb_per_100=100 * big_blinds_won / hands)


class LuckTally:
    """Each bot's payoff per hand over a run, plain and with the luck of the cards
    taken out (protocols/luck.py: a game's ``luck_reader`` gives each hand's
    payoffs and chance terms), as running means and squared deviations
    (Welford's, exact over millions of hands): a 95% interval of each mean
    per hand, the hands taken as independent. In mbb/g with a big blind, else
    in the payoff's unit per hand."""

    def __init__(self, bots: int, big_blind: float | None) -> None:
        from protocols.luck import ESTIMATES

        self.kinds = ("plain", *ESTIMATES)
        self.big_blind = big_blind
        #: kind -> bot -> [hands, mean, sum of squared deviations from the mean]
        self.sums = {kind: [[0, 0.0, 0.0] for _ in range(bots)] for kind in self.kinds}
        #: the table's seats' bots in the match being played (``--duplicate`` changes it)
        self.seating: tuple[int, ...] = tuple(range(bots))

    def add(self, hand: Any) -> None:
        scale = 1000 / self.big_blind if self.big_blind else 1.0
        for seat, payoff in enumerate(hand.payoffs):
            bot = self.seating[seat]
            self._add("plain", bot, payoff * scale)
            for kind, terms in hand.terms.items():
                self._add(kind, bot, (payoff - terms[seat]) * scale)

    def _add(self, kind: str, bot: int, x: float) -> None:
        row = self.sums[kind][bot]
        row[0] += 1
        delta = x - row[1]
        row[1] += delta / row[0]
        row[2] += delta * (x - row[1])

    def report(self, bot: int) -> dict[str, Any]:
        """The bot's estimates: per kind its mean per hand, 95% interval and hands."""
        out: dict[str, Any] = {"unit": "mbb/g" if self.big_blind else "per hand"}
        for kind in self.kinds:
            n, mean, squares = self.sums[kind][bot]
            if n == 0:
                continue
            half = 1.96 * math.sqrt(squares / (n - 1) / n) if n > 1 else math.inf
            out[kind] = {"mean": mean, "ci_low": mean - half, "ci_high": mean + half, "hands": n}
        return out
