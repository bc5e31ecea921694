"""Luck taken out of a poker payoff: the chance terms of AIVAT.

A seat's payoff over a hand is skill plus the luck of the cards. For any
value function ``v`` (what a seat is expected to win from a point of the
hand on), each chance event ``c`` at a point ``h`` contributes the term
``v(h·c) - E[v(h·c')]``: what that card was worth to the seat, against what
a card drawn from the same deck is worth on average. Every term has mean
zero whatever the players do, since the dealer draws ``c`` from that deck
and nobody chooses it; so the payoff minus the hand's terms is an unbiased
estimate of the payoff's mean, and where ``v`` follows the payoff it varies
much less. This is AIVAT's chance correction (Burch et al., 2018) without
its action terms, which need each player's strategy: the arena knows every
card it dealt, and no bot's strategy.

A game offers this through ``GamePlugin.luck_reader(params, seed)``: a
sans-I/O reader of the lines the arena sends the seats (``sent(seat,
text)``, as the trace hook gives them) whose ``take()`` returns the hands
finished since the last call, each a ``HandLuck``. The estimates named here:

* ``aivat``: every chance event of the hand (the deal included);
* ``allin``: only the cards dealt once no seat can act again (the all-in
  adjustment: a hand's result is its expectation at the all-in).

The arena sums what the reader gives per bot and reports each estimate with
its 95% interval beside the plain one (arena._scoring.LuckTally).
"""

from __future__ import annotations

from dataclasses import dataclass

#: the estimates a reader may give, in the order tables show them
ESTIMATES = ("allin", "aivat")


@dataclass(frozen=True, slots=True)
class HandLuck:
    """One finished hand: each seat's payoff, and per estimate each seat's sum of
    chance terms (its luck, in the payoff's unit: subtract it from the payoff)."""

    payoffs: tuple[float, ...]
    terms: dict[str, tuple[float, ...]]
