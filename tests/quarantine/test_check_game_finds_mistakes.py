"""``arena check-game`` on a game of our own making (tests/quarantine/bluff.py,
hidden dice for two or three seats) and on versions of it with one planted
mistake each: it passes the clean one and fails each planted one on the
check for that mistake, saying in words which seat, message and rule; and
a game that declares nothing it could be checked by fails every check that
cannot run, with the sentence that says what to add.

Each version's golden playthrough is written first, as its author would
regenerate it: the goldens cannot be what catches the mistake.
"""

from __future__ import annotations

import pytest

from arena.quarantine._conformance import check_game, write_golden

from . import bluff_planted, tricks
from .bluff import BluffPlugin


def _checked(plugin_class: type[BluffPlugin], tmp_path) -> dict[str, object]:
    plugin = plugin_class(tmp_path / "bluff.playthrough")
    write_golden(plugin)
    return {c.name: c for c in check_game(plugin)}


def test_the_clean_game_passes_every_check(tmp_path):
    checks = _checked(BluffPlugin, tmp_path)
    assert [c.line() for c in checks.values() if not c.ok] == []
    # the new checks really ran on it, rather than skipping
    for name in ("information", "legality", "attribution", "seat views", "invariants", "match indexes"):
        assert "not checked" not in checks[name].summary, checks[name].line()
    assert "re-drawn in" in checks["information"].summary and "seat views" in checks["legality"].summary


PLANTED = [
    (bluff_planted.Leaking, "information", ["seat", "told", "depends on seat", "private chance"]),
    (bluff_planted.Lax, "legality", ["none of the legal choices", "yet the dialogue accepted it", '"type": "bid"']),
    (bluff_planted.Unbounded, "parameters", ["'dice'", "no lower and no upper bound"]),
    (bluff_planted.Misblaming, "attribution", ["was charged to seat", "the seat that sent it"]),
    (bluff_planted.Rewarding, "fault never pays", ["faulting at reply", "by the game's fault rule", "playing on"]),
    # issue 43: the same mistakes in a game that gives no legal set, and the ones no check saw before
    (bluff_planted.LaxByView, "legality", ["none of the legal choices", "yet the dialogue accepted it"]),
    (bluff_planted.MisblamingByView, "attribution", ["was charged to seat", "the seat that sent it"]),
    (bluff_planted.Neighbour, "information", ["was told", "knowing the same", "may not know"]),
    (bluff_planted.LastHand, "information", ["was told", "knowing the same", "may not know"]),
    (bluff_planted.Uneven, "invariants", ["3 seats", "add up to", "zero_sum"]),
    (bluff_planted.Ignoring, "parameters", ["'wild' changes nothing"]),
    (bluff_planted.RulesMismatch, "rules page", ["'pips'", "no message or reply", "disagree"]),
    (bluff_planted.Indexed, "match indexes", ["one number per seat", "TypeError"]),
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


def test_a_game_that_declares_nothing_fails_what_cannot_be_checked(tmp_path):
    # The Liar's Dice of issue 43: no seat view, no known, no invariants, no
    # legal set. Each check that cannot run says so as a FAIL, with what to add.
    checks = _checked(bluff_planted.Opaque, tmp_path)
    expected = {"seat views": "define GamePlugin.seat_view", "information": "add it",
                "invariants": "not declared", "legality": "give it a seat view",
                "attribution": "cannot be checked"}
    for name, words in expected.items():
        assert not checks[name].ok and words in checks[name].summary, checks[name].line()
    assert {n for n, c in checks.items() if not c.ok} == set(expected)


def test_a_leak_on_the_last_trick_is_found_where_a_seats_plays_follow_its_cards(tmp_path):
    # In a trick game the hidden seat's first card refuses a hand re-drawn
    # whole; a hand kept but for its last cards replays to the last trick.
    clean = _checked(tricks.TricksPlugin, tmp_path)
    assert [c.line() for c in clean.values() if not c.ok] == []
    leaking = _checked(tricks.LastTrick, tmp_path)
    assert {n for n, c in leaking.items() if not c.ok} == {"information"}
    summary = leaking["information"].summary
    assert '"type":"trick"' in summary and "knowing the same" in summary and "private chance" in summary, summary
    assert "re-drawn after its first" in summary, summary  # the whole re-draws never reach the last trick



def test_writing_the_golden_of_a_game_whose_own_replies_are_refused_says_so_and_writes_nothing(tmp_path):
    class Wrong(BluffPlugin):
        def random_reply(self, run, seat, payload, rng):
            return '{"type": "shrug"}'

    plugin = Wrong(tmp_path / "bluff.playthrough")
    with pytest.raises(ValueError, match=r"no golden playthrough written for .*: seat 0's reply, which the game's "
                                         r"own random_reply chose, was refused \(malformed_reply: .*shrug"):
        write_golden(plugin)
    assert not (tmp_path / "bluff.playthrough").exists()
