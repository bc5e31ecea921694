"""The standings' rules on hand-made match records (pure: no processes)."""

from __future__ import annotations

import math

from arena.results._standings import compute_standings, grouped_ci, mean_ci


def _match(rnd, seats, scores, faults=(), status="done"):
    return {"round": rnd, "seats": list(seats), "scores": list(scores),
            "faults": [{"seat": s, "kind": "timeout"} for s in faults], "status": status}


def test_a_duplicate_deal_counts_once_in_the_interval():
    # Each deal: the entrant wins 10 + x in one seat and loses 10 - x in the other.
    values = [12, -8, 7, -13, 10, -10, 11, -9]
    deals = [0, 0, 1, 1, 2, 2, 3, 3]
    mean, low, high = grouped_ci(values, deals)
    assert mean == sum(values) / len(values)
    _, plain_low, plain_high = mean_ci(values)
    assert high - low < (plain_high - plain_low) / 2  # the seat's luck cancels within a deal
    # one observation per deal: the half-width is that of the deals' means
    _, d_low, d_high = mean_ci([2, -3, 0, 1])
    assert math.isclose(high - low, d_high - d_low)


def test_duplicate_standings_group_the_seatings_of_one_round():
    names = ["a", "b"]
    matches = [_match(r, seats, sc) for r in range(3)
               for seats, sc in (((0, 1), (5 + r, -5 - r)), ((1, 0), (4, -4 + r)))]
    plain = {row["bot"]: row for row in compute_standings(names, matches)["standings"]}
    dup = {row["bot"]: row for row in compute_standings(names, matches, duplicate=True)["standings"]}
    assert plain["a"]["mean"] == dup["a"]["mean"] and plain["a"]["matches"] == dup["a"]["matches"] == 6
    assert dup["a"]["ci_high"] - dup["a"]["ci_low"] < plain["a"]["ci_high"] - plain["a"]["ci_low"]


def test_a_faulting_seat_ranks_last_for_the_rating_whatever_its_score():
    names = ["good", "faulty", "other"]
    # the faulty seat has the best score in every match, yet faulted
    matches = [_match(0, (0, 1, 2), (1, 50, -51), faults=[1]) for _ in range(10)]
    rows = {row["bot"]: row for row in compute_standings(names, matches)["standings"]}
    assert rows["faulty"]["rating_mu"] < rows["good"]["rating_mu"]
    assert rows["faulty"]["rating_mu"] < rows["other"]["rating_mu"]
    assert rows["faulty"]["faults"] == {"timeout": 10} and rows["good"]["faults"] == {}


def test_disqualification_counts_later_matches_as_forfeits_in_schedule_order():
    names = ["a", "b"]
    matches = [_match(0, (0, 1), (3, -3)), _match(0, (1, 0), (-1, 1), faults=[0]),
               _match(1, (0, 1), (9, -9)), _match(1, (1, 0), (0, 0), status="forfeit")]
    rows = compute_standings(names, matches, max_faults=1, unplayed=-100.0)["standings"]
    assert [r["bot"] for r in rows] == ["a", "b"]  # the disqualified entrant is listed last
    b = rows[1]
    assert b["disqualified"] and b["forfeits"] == 2
    # the match played after the deciding fault counts as a forfeit too
    assert b["score"] == 3 * 0 - 3 - 1 - 100 - 100 + 3 * 0 + 0
    assert rows[0]["score"] == 3 + 1


def test_poker_rates_count_the_chips_of_the_ranked_score_over_the_hands_played():
    names = ["a", "b"]
    matches = [{**_match(0, (0, 1), (30, -30)), "hands": 100}, {**_match(0, (1, 0), (10, -10)), "hands": 50},
               # a forfeit adds a score of `unplayed` and no hands
               {**_match(1, (0, 1), (0, 0), status="forfeit"), "hands": 0}]
    rows = {r["bot"]: r for r in compute_standings(names, matches, big_blind=2)["standings"]}
    assert math.isclose(rows["a"]["mbb_per_game"], 1000 * (30 - 10) / 2 / 150)
    assert math.isclose(rows["b"]["bb_per_100"], 100 * (-30 + 10) / 2 / 150)
    plain = compute_standings(names, matches)["standings"]
    assert all(r["mbb_per_game"] is None and r["bb_per_100"] is None for r in plain)
