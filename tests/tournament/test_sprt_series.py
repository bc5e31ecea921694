"""`arena tournament --sprt`: a two-entrant series that stops at the round where
the test first decides, as fastchess stops a match (the decisions themselves
are checked case by case in tests/results/test_sprt.py)."""

from __future__ import annotations

import json

import pytest

from click.testing import CliRunner

from arena.cli import command
from arena.results._sprt import Sprt, tally

from ..conftest import ROOT, SAMPLE_BOTS, replay_key

VN = ROOT / "sample_bots" / "vonneumann" / "build"


def arena(*args: str):
    return CliRunner().invoke(command(), list(args))


def test_the_series_stops_where_the_sprt_first_decides(tmp_path):
    out = arena("tournament", "vonneumann", str(VN / "naive"), str(VN / "likeme"), "--sprt", "0,200",
                "-p", "sessions=1", "-p", "games_per_session=10", "--seed", replay_key("3"), "--sandbox", "none",
                "--db", str(tmp_path / "t.db"), "--json")
    assert out.exit_code == 0, out.stderr
    result = json.loads(out.stdout)
    state = result["sprt"]
    rounds = result["rounds"]
    assert state["decision"] == "H0" and state["llr"] <= state["bounds"][0]
    assert result["stopped_early"] and rounds < result["rounds_planned"] == 10_000
    assert f"stopped early after {rounds} of 10000 rounds" in out.stderr
    assert "SPRT [0, 200] normalized Elo: LLR " in out.stderr
    assert "H0 accepted: the results favour naive being 0 Elo stronger over 200" in out.stderr
    # what it counts, beside the rank's points: matches won, not by how much
    assert "(logistic Elo of matches won, drawn and lost, not of how many m/√g points: L/D/W " in out.stderr
    # Replayed from the stored matches, round by round: no decision before the last round.
    test = Sprt(0, 200)
    results = []
    for r in range(rounds):
        for m in result["match_list"]:
            if m["round"] == r:
                first = m["entrants"].index("naive")
                results.append((m["scores"][first], m["scores"][1 - first], r))
        decided = test.decide(test.llr(tally(results)))
        assert (decided is not None) == (r == rounds - 1), (r, decided)
    assert len(result["match_list"]) == 2 * rounds
    # the head-to-head carries the same Elo
    row = next(h for h in result["head_to_head"] if h["bot"] == "naive")
    assert row["elo"] == state["elo"] and row["los"] == state["los"]


def test_sprt_is_for_two_entrants_of_a_two_seat_game(tmp_path):
    rule = str(SAMPLE_BOTS / "build" / "rule_bot")
    for args, words in (
        (["kuhn3", rule, rule, rule, "--sprt", "0,5"], "--sprt tests one entrant against another in a two-seat game"),
        (["vonneumann", str(VN / "naive"), str(VN / "naive"), str(VN / "likeme"), "--sprt", "0,5"],
         "this vonneumann tournament has 3 entrants"),
        (["vonneumann", str(VN / "naive"), str(VN / "likeme"), "--sprt", "0,5", "--until-ci", "3"],
         "--sprt and --until-ci are two ways to stop early"),
        (["vonneumann", str(VN / "naive"), str(VN / "likeme"), "--sprt", "5,0"], "must be less than ELO1"),
    ):
        out = arena("tournament", *args, "--db", str(tmp_path / "x.db"))
        assert out.exit_code == 2 and words in out.stderr, (args, out.stderr)
    assert not (tmp_path / "x.db").exists()


def test_a_poker_series_tested_on_chips_stops_on_chips_and_says_so(tmp_path):
    holdem = ROOT / "sample_bots" / "holdem" / "build"
    out = arena("tournament", "holdem", f"rule={holdem / 'rule_bot'}", f"caller={holdem / 'call_bot'}",
                "-p", "hands=60", "--sprt-chips", "0,400", "--duplicate", "--seed", replay_key("9"),
                "--sandbox", "none", "--db", str(tmp_path / "t.db"), "--json")
    assert out.exit_code == 0, out.stderr
    result = json.loads(out.stdout)
    state = result["sprt"]
    assert state["model"] == "chips" and state["decision"] == "H1" and result["stopped_early"]
    # one observation per deal: its two seatings' chips over their hands, in mbb/g (big blind 2)
    deals: dict[int, list[tuple[float, int]]] = {}
    for m in result["match_list"]:
        deals.setdefault(m["round"], []).append((m["scores"][m["entrants"].index("rule")], 60))
    values = [1000 * sum(x for x, _ in d) / 2 / sum(h for _, h in d) for d in deals.values()]
    assert state["observations"] == len(values) and state["mbb_per_game"] == pytest.approx(sum(values) / len(values))
    assert state["llr"] == pytest.approx(Sprt(0, 400, model="chips").llr_chips(values))
    assert "SPRT [0, 400] mbb/g on chips: LLR" in out.stderr and "not matches won" in out.stderr
    row = next(h for h in result["head_to_head"] if h["bot"] == "rule")
    assert row["los_chips"] > 0.99


def test_chips_are_tested_only_where_the_game_has_a_big_blind(tmp_path):
    for args, words in (
        (["vonneumann", str(VN / "naive"), str(VN / "likeme"), "--sprt-chips", "0,50", "--sprt", "0,5"],
         "--sprt counts match wins and --sprt-chips chips: give one"),
        (["rpsdraft", str(SAMPLE_BOTS.parent / "rpsdraft/minimal_bot.py"),
          str(SAMPLE_BOTS.parent / "rpsdraft/minimal_bot.py"), "--sprt-chips", "0,50"],
         "has no big blind"),
    ):
        out = arena("tournament", *args, "--db", str(tmp_path / "t.db"))
        assert out.exit_code == 2 and words in out.stderr, out.stderr
