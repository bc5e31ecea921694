"""Any name a bot may have survives a PHH file: PokerKit loads it back as it
was written (TOML's strings take every Unicode character, escaped where TOML
says so; json.dumps's escape of a character outside the BMP is a pair of
surrogates, which TOML refuses)."""

from __future__ import annotations

import random

import pytest

pokerkit = pytest.importorskip("pokerkit")

from arena.play._stepping import step_through  # noqa: E402
from games.holdem import HoldemParams  # noqa: E402
from protocols.holdem import PLUGIN  # noqa: E402
from protocols.holdem_phh import HandHistories  # noqa: E402

NAMES = [
    "emoji \N{GRINNING FACE} and \N{MUSICAL SYMBOL G CLEF}",  # outside the BMP: a surrogate pair in JSON
    'quote " backslash \\ tab \t end',
    "newline\nreturn\r bell\x07 del\x7f nul\x00",
    "accents éàü 漢字 \u200b zero-width",
]


def _histories(names: list[str], seed: int = 3) -> HandHistories:
    run = PLUGIN.open_dialogue(HoldemParams(hands=3, stack=40), random.Random(seed), names)
    histories, rng = HandHistories(names), random.Random(seed + 1)

    def sent(n, exchange) -> None:
        for seat, payload in exchange.sends:
            histories.sent(seat, payload.decode())

    step_through(run, "holdem", lambda n, seat, payload: PLUGIN.random_reply(run, seat, payload, rng),
                 on_exchange=sent)
    return histories


def test_every_unicode_name_loads_back_in_pokerkit_as_written():
    histories = _histories(NAMES)
    text = histories.dumps()
    text.encode("utf-8")  # the file is UTF-8, as PHH says
    hands = list(pokerkit.HandHistory.loads_all(text))
    assert len(hands) == 3
    for hh in hands:
        assert sorted(hh.players) == sorted(NAMES)
        for _state in hh:  # and it replays
            pass

