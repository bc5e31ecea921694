"""Luck taken out (protocols/luck.py, ``--aivat``): each chance term has mean
zero (equities are martingales), the adjusted means agree with the plain
ones over matches between fixed bots, and their intervals are narrower."""

from __future__ import annotations

import json
import random
import statistics

import pytest

from games.holdem._cards import parse_cards
from protocols.holdem_luck import equities, pots
from tests.conftest import ROOT, replay_key, run_arena

HOLDEM = ROOT / "sample_bots" / "holdem" / "build"
KUHN3 = ROOT / "sample_bots" / "kuhn3" / "build"
SHOVE = ROOT / "tests" / "bots" / "shove_holdem.py"


def test_pots_stand_as_the_chips_do_side_pots_and_an_uncalled_excess_included():
    # seat 0 all in for 100, seats 1 and 2 in for 300, seat 3 folded after 50
    assert pots({0: 100, 1: 300, 2: 300, 3: 50}, {0, 1, 2}) == [(350, [0, 1, 2]), (400, [1, 2])]
    # an uncalled bet is a pot of its raiser's alone: its chips come back
    assert pots({0: 40, 1: 100}, {0, 1}) == [(80, [0, 1]), (60, [1])]


def test_an_equity_is_the_mean_of_the_next_cards_equities_so_each_term_has_mean_zero():
    holes = {0: tuple(parse_cards("AhKh")), 1: tuple(parse_cards("QsQd")), 2: tuple(parse_cards("7c2d"))}
    rng = random.Random(0)
    groups = [(0, 1)]  # seat 2 folded: its cards are out of the deck, it is in no pot
    for board_text in ("Qh5h9c", "Qh5h9c3s"):
        board = tuple(parse_cards(board_text))
        now = equities(holes, board, groups, rng)[(0, 1)]
        dead = {c for h in holes.values() for c in h} | set(board)
        nexts = [equities(holes, board + (c,), groups, rng)[(0, 1)] for c in range(52) if c not in dead]
        for seat in (0, 1):
            assert statistics.fmean(n[seat] for n in nexts) == pytest.approx(now[seat], abs=1e-12)
        assert now[0] + now[1] == pytest.approx(1.0)
    river = equities(holes, tuple(parse_cards("Qh5h9c3s2h")), groups, rng)[(0, 1)]
    assert river == {0: 1.0, 1: 0.0}  # the flush


def _luck(run) -> list[dict]:
    assert run.returncode == 0, run.stderr
    return [seat["luck"] for seat in json.loads(run.stdout)["seats"]]


def _agree_and_narrow(reports: list[list[dict]], kind: str, narrower: float) -> None:
    """Over matches: the adjusted mean minus the plain one is zero within 4 standard errors
    of its mean, for every bot; every adjusted interval is ``narrower`` times the plain one."""
    for bot in range(len(reports[0])):
        diffs = [r[bot][kind]["mean"] - r[bot]["plain"]["mean"] for r in reports]
        error = statistics.stdev(diffs) / len(diffs) ** 0.5
        assert abs(statistics.fmean(diffs)) < 4 * error, (bot, diffs)
        for r in reports:
            plain, adjusted = r[bot]["plain"], r[bot][kind]
            assert (adjusted["ci_high"] - adjusted["ci_low"]) * narrower < plain["ci_high"] - plain["ci_low"]


def test_kuhn3_luck_taken_out_agrees_with_the_chips_over_matches_in_under_a_third_of_the_interval():
    bots = [str(KUHN3 / "rule_bot"), str(KUHN3 / "rule_bot_rs"), str(KUHN3 / "rule_bot")]
    reports = [_luck(run_arena("kuhn3", *bots, "--hands", "1000", "--seed", replay_key(f"luck{k}"),
                               "--sandbox", "none", "--aivat", "--json")) for k in range(6)]
    assert all(r[0]["unit"] == "mbb/g" and r[0]["plain"]["hands"] == 1000 for r in reports)
    _agree_and_narrow(reports, "aivat", 3)


def test_holdem_all_in_adjustment_agrees_with_the_chips_over_matches_in_under_half_the_interval():
    reports = [_luck(run_arena("holdem", str(SHOVE), str(HOLDEM / "call_bot"), "--hands", "100",
                               "--seed", replay_key(f"allin{k}"), "--sandbox", "none", "--aivat", "--json"))
               for k in range(6)]
    _agree_and_narrow(reports, "allin", 2)
    _agree_and_narrow(reports, "aivat", 2)


def test_duplicate_seatings_sum_each_bots_luck_whichever_seat_it_had():
    run = run_arena("holdem", str(HOLDEM / "rule_bot"), str(HOLDEM / "call_bot"), "--hands", "40",
                    "--seed", replay_key("dup"), "--sandbox", "none", "--aivat", "--duplicate", "--json")
    luck = _luck(run)
    out = json.loads(run.stdout)
    assert [b["plain"]["hands"] for b in luck] == [80, 80]
    # the plain mean is the bot's chips over both seatings, in mbb/g (big blind 2)
    for seat, report in zip(out["seats"], luck):
        assert report["plain"]["mean"] == pytest.approx(1000 * seat["payoff"] / 2 / 80)


@pytest.mark.parametrize("game, args", [
    ("rpsdraft", [str(ROOT / "sample_bots/rpsdraft/minimal_bot.py")] * 2),
    ("holdem", [str(HOLDEM / "rule_bot"), str(HOLDEM / "call_bot"), "--mode", "freezeout"]),
])
def test_aivat_is_refused_where_the_game_gives_no_luck_estimate(game, args):
    run = run_arena(game, *args, "--sandbox", "none", "--aivat")
    assert run.returncode == 2 and "gives no such estimate" in run.stderr, run.stderr
