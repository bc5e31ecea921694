"""``--duplicate`` for a single match and a series: every seating plays the
same cards, the results are per bot, and the poker rates (mbb/g, bb/100)
follow each bot through its seats."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import ROOT, run_arena

HOLDEM = ROOT / "sample_bots" / "holdem" / "build"
KUHN3 = ROOT / "sample_bots" / "kuhn3" / "build"
LINE = re.compile(r"^\[\s*[\d.]+\] seat (\d+) -> (\{.*\})$")


def _seatings(stderr: str, kind: str) -> list[list[tuple[int, dict]]]:
    """The messages of type ``kind`` sent in each match of a traced run, in order."""
    out: list[list[tuple[int, dict]]] = []
    for line in stderr.splitlines():
        found = LINE.match(line)
        if not found:
            continue
        seat, message = int(found[1]), json.loads(found[2])
        if message["type"] == "match_start" and seat == 0:
            out.append([])
        if message["type"] == kind:
            out[-1].append((seat, message))
    return out


def test_a_duplicate_holdem_match_deals_each_seating_the_same_cards_and_sums_per_bot():
    run = run_arena("holdem", f"first={HOLDEM / 'rule_bot'}", f"second={HOLDEM / 'call_bot'}", "--hands", "12",
                    "--seed", "41", "--sandbox", "none", "--duplicate", "--trace", "--json")
    assert run.returncode == 0, run.stderr
    starts = _seatings(run.stderr, "match_start")
    assert [[m["players"] for _, m in s][0] for s in starts] == [["first", "second"], ["second", "first"]]
    hands = _seatings(run.stderr, "hand_start")
    cards = [[(seat, m["hand"], m["cards"]) for seat, m in s] for s in hands]
    assert len(cards) == 2 and len(cards[0]) == 24, cards
    assert cards[0] == cards[1]  # seat by seat, hand by hand
    assert len({tuple(c) for _, _, c in cards[0]}) > 1  # (not one hand dealt again and again)

    out = json.loads(run.stdout)
    assert out["seatings"] == [[0, 1], [1, 0]] and out["big_blind"] == 2
    matches = out["matches"]
    assert matches[0]["seed"] == matches[1]["seed"]
    # each bot's figures are its own seat's in each match, whichever seat that was
    first = matches[0]["seats"][0]["payoff"] + matches[1]["seats"][1]["payoff"]
    assert [s["bot"] for s in out["seats"]] == ["first", "second"]
    assert out["seats"][0]["payoff"] == first and out["seats"][1]["payoff"] == -first
    assert out["seats"][0]["mbb_per_game"] == pytest.approx(1000 * first / 2 / 24)
    assert out["seats"][0]["bb_per_100"] == pytest.approx(100 * first / 2 / 24)


def test_a_duplicate_kuhn3_series_plays_every_ordering_of_each_deal():
    run = run_arena("kuhn3", str(KUHN3 / "rule_bot"), str(KUHN3 / "rule_bot_rs"), str(KUHN3 / "rule_bot"),
                    "--hands", "5", "--matches", "2", "--seed", "3", "--sandbox", "none", "--duplicate", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert len(out["matches"]) == 12 and sorted(map(tuple, out["seatings"])) == sorted(
        [(a, b, c) for a in range(3) for b in range(3) for c in range(3) if len({a, b, c}) == 3] * 2)
    assert len({m["seed"] for m in out["matches"]}) == 2  # two deals, six seatings each
    assert sum(s["payoff"] for s in out["seats"]) == 0
    assert out["seats"][1]["mbb_per_game"] == pytest.approx(1000 * out["seats"][1]["payoff"] / 60)


@pytest.mark.parametrize("extra, words", [
    (["--lifetime", "tournament"], "not with --lifetime tournament"),
    (["--hand-history", "h.phhs"], "--hand-history and --acpc-log write one seating's hands"),
])
def test_duplicate_refuses_what_would_let_a_deal_be_remembered_or_mislabelled(extra, words):
    run = run_arena("holdem", str(HOLDEM / "rule_bot"), str(HOLDEM / "call_bot"), "--hands", "2",
                    "--sandbox", "none", "--duplicate", *extra)
    assert run.returncode == 2 and words in run.stderr, run.stderr


def test_the_table_shows_the_rates_beside_the_chips():
    run = run_arena("holdem", str(HOLDEM / "rule_bot"), str(HOLDEM / "call_bot"), "--hands", "10",
                    "--seed", "5", "--sandbox", "none")
    assert run.returncode == 0, run.stderr
    header = next(line for line in run.stdout.splitlines() if line.lstrip().startswith("seat"))
    assert header.split() == ["seat", "bot", "chips", "mbb/g", "bb/100", "fault"]
