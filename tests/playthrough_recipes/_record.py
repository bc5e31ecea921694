"""Drive a dialogue in-process with scripted replies and record its wire lines."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def record(
    dealer: Any,
    answer: Callable[[int, bytes], str],
    closing: Callable[[Any], str],
) -> list[str]:
    """Every line sent (``seat -> line``) and replied (``seat <- line``), then
    ``closing(outcome)`` as the last line. ``answer(seat, payload)`` is asked
    only for requests, never for notifications."""
    lines: list[str] = []
    gen = dealer.run()
    replies = None
    try:
        while True:
            exchange = gen.send(replies)
            replies = []
            for seat, payload in exchange.sends:
                lines.extend(f"{seat} -> {line}" for line in payload.decode().splitlines())
                if exchange.reply:
                    reply = answer(seat, payload)
                    lines.append(f"{seat} <- {reply}")
                    replies.append(reply)
    except StopIteration as stop:
        lines.append(closing(stop.value))
    return lines
