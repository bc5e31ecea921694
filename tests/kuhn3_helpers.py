"""In-process helpers for driving the kuhn3 dialogue without processes."""

from __future__ import annotations

import random

from protocols.kuhn3 import CLOSING, Kuhn3Dealer


def reference_reply(dealer: Kuhn3Dealer, seat: int, payload: bytes, rng: random.Random) -> str:
    """A correct reply to ``payload`` for ``seat``, read off the dealer's state."""
    head = payload.split(b"\n", 1)[0]
    r = dealer.round
    if head in (b"init_round", b"init_hand"):
        return "READY"
    if head == b"play":
        return str(rng.choice(r.legal_actions())[0])
    if head == b"end_hand":
        return "OK"
    if head.startswith(b"EndAction"):
        return "Money: " + ",".join(str(r.money[(seat + i) % 3]) for i in range(3))
    if head == b"end_round":
        return CLOSING
    raise AssertionError(f"unexpected message {payload!r}")


def playthrough(dealer: Kuhn3Dealer, rng: random.Random) -> list[str]:
    """Run a whole dialogue with correct replies; return the wire transcript."""
    from .playthrough_recipes._record import record

    return record(
        dealer,
        lambda seat, payload: reference_reply(dealer, seat, payload, rng),
        lambda outcome: f"# payoffs {outcome.payoffs} after {outcome.hands} hands",
    )
