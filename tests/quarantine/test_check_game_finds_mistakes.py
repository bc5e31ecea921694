"""``arena check-game`` on a game of our own making (tests/quarantine/bluff.py,
hidden dice for two or three seats) and on five versions of it with one
planted mistake each: it passes the clean one and fails each planted one on
the check for that mistake, saying in words which seat, message and rule.

Each version's golden playthrough is written first, as its author would
regenerate it: the goldens cannot be what catches the mistake.
"""

from __future__ import annotations

import pytest

from arena.quarantine._conformance import check_game, write_golden

from . import bluff_planted
from .bluff import BluffPlugin


def _checked(plugin_class: type[BluffPlugin], tmp_path) -> dict[str, object]:
    plugin = plugin_class(tmp_path / "bluff.playthrough")
    write_golden(plugin)
    return {c.name: c for c in check_game(plugin)}


def test_the_clean_game_passes_every_check(tmp_path):
    checks = _checked(BluffPlugin, tmp_path)
    assert [c.line() for c in checks.values() if not c.ok] == []
    # the new checks really ran on it, rather than skipping
    for name in ("information", "legality", "attribution"):
        assert "not checked" not in checks[name].summary, checks[name].line()


PLANTED = [
    (bluff_planted.Leaking, "information", ["seat", "told", "depends on seat", "private chance"]),
    (bluff_planted.Lax, "legality", ["does not allow it, yet the dialogue accepted it", '"type": "bid"']),
    (bluff_planted.Unbounded, "parameters", ["'dice'", "no lower and no upper bound"]),
    (bluff_planted.Misblaming, "attribution", ["was charged to seat", "the seat that sent it"]),
    (bluff_planted.Rewarding, "fault never pays", ["faulting at reply", "playing on"]),
]


@pytest.mark.parametrize(("planted", "check", "words"), PLANTED, ids=[p[1] for p in PLANTED])
def test_each_planted_mistake_fails_its_check_in_words(planted, check, words, tmp_path):
    checks = _checked(planted, tmp_path)
    failed = {name for name, c in checks.items() if not c.ok}
    assert check in failed, checks[check].line()
    # nothing else breaks: the failure points at the mistake (attribution
    # follows legality when the probe stops early, not the other way round)
    assert failed <= {check, "attribution" if check == "legality" else check}, failed
    for word in words:
        assert word in checks[check].summary, checks[check].summary
