"""A dialogue stepped in-process, with no bot processes: the one loop through
which ``arena check-game``, the league's match pages and the tests drive a
game (a match over pipes is ``_match``'s).

Every call into the game is bounded (``Guarded``): a game that raises, spins
or goes silent is a ``GameError`` naming it. What a step does with each
exchange is the caller's, through two functions:

* ``on_exchange(n, exchange)``: the ``n``-th exchange as the dialogue yields
  it, before any reply (a check reads the game's state here: what each
  seat knows, the forfeit it would score);
* ``answer(n, seat, payload)``: the reply of ``seat`` to ``payload``, for
  each message of an exchange that asks, in order (None: the seat sent no
  line, and the game has let it go, ``seat_gone``, as the arena sends for a
  seat it stopped).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from protocols import Exchange, MatchOutcome, ProtocolError

from ._guard import STEP_SECONDS, Guarded

Answer = Callable[[int, int, bytes], str | None]
OnExchange = Callable[[int, Exchange], None]


def step_through(run: Any, game: str, answer: Answer, *, on_exchange: OnExchange | None = None,
                 on_fault: Callable[[ProtocolError], None] | None = None, limit: int | None = None,
                 seconds: float = STEP_SECONDS) -> MatchOutcome | None:
    """Play ``run``'s dialogue: its outcome, or None when exchange number
    ``limit`` was yielded first (it is neither shown to ``on_exchange`` nor
    answered: a replay that stops there has seen the dialogue take what came
    before). A fault the dialogue reports and plays on after
    (``Exchange.fault``) goes to ``on_fault``, or is raised without one; a
    ``ProtocolError`` the dialogue raises is raised."""
    gen = Guarded(run, game, seconds)
    replies: list[str | None] | None = None
    n = 0
    try:
        while True:
            exchange = gen.send(replies)
            if exchange.fault is not None:
                if on_fault is None:
                    raise exchange.fault
                on_fault(exchange.fault)
                replies = []
                continue
            if n == limit:
                return None
            if on_exchange is not None:
                on_exchange(n, exchange)
            replies = [answer(n, seat, payload) for seat, payload in exchange.sends] if exchange.reply else []
            n += 1
    except StopIteration as stop:
        return stop.value
