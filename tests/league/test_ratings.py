"""League ratings across tournaments, on a real SQLite file: a fault never pays,
versions are followed across tournaments, the trend is the latest tournament's
change, and head-to-head counts add up. And the sampling that keeps a
placement small in a big pool."""

from __future__ import annotations

import pytest

from arena.league._db import League
from arena.league._ratings import Ratings
from arena.results._store import open_store
from arena.tournament._run import Pairing, schedule, sample_sets


@pytest.fixture
def league(tmp_path):
    store = open_store(tmp_path / "l.db")
    league = League(store)
    league.add_user("owner")
    owner = league.users()[0]["id"]
    versions = []
    for name in ("ann", "ben", "cat"):
        bot = league.bot_for(owner, "kuhn3", name)
        vid = league.add_version(bot, "0" * 64, "file", {"run": "./x"})
        store_bot = store.bot_id(name, f"./{name}", [f"./{name}"])
        league.set_state(vid, "active", store_bot=store_bot)
        versions.append((vid, store_bot))
    yield league, versions
    store.close()


def _tournament(league: League, versions, matches: list[tuple[list[float], list[int]]]) -> int:
    """A finished league tournament of kuhn3 between the three versions, in the given
    order: each match (scores in seat order, faulting seats), seats 0, 1, 2."""
    store = league.store
    tid = store.new_tournament("kuhn3", 1, {}, 1, 1, "match", [(f"e{i}", sb) for i, (_, sb) in enumerate(versions)])
    league.add_tournament(tid, "scheduled")
    store.schedule(tid, [Pairing(0, i, (0, 1, 2), i) for i in range(len(matches))])
    for i, (scores, faulted) in enumerate(matches):
        store.add_match(tid, {"round": 0, "idx": i, "seats": [0, 1, 2], "completed": not faulted, "hands": 10,
                              "scores": scores, "payoffs": scores, "timings": {},
                              "faults": [{"seat": s, "kind": "crash", "detail": "exited 1"} for s in faulted]})
    store.finish_tournament(tid)
    return tid


def test_a_fault_never_pays_even_with_the_best_score(league):
    lg, versions = league
    # ann scores most in every match but faults in each: she must rate last.
    _tournament(lg, versions, [([9, 1, -10], [0])] * 6)
    table = Ratings(lg).table("kuhn3")
    by_version = {r["version"]: r for r in table}
    ann, ben, cat = (v for v, _ in versions)
    assert table[-1]["version"] == ann
    assert by_version[ann]["faults"] == 6 and by_version[ben]["faults"] == 0
    assert by_version[ben]["rating"] > by_version[cat]["rating"] > by_version[ann]["rating"]


def test_ratings_follow_versions_across_tournaments_and_the_trend_is_the_latest_change(league):
    lg, versions = league
    ann, ben, cat = (v for v, _ in versions)
    ratings = Ratings(lg)
    _tournament(lg, versions, [([3, 0, -3], [])] * 4)
    first = {r["version"]: r for r in ratings.table("kuhn3")}
    assert first[ann]["matches"] == 4 and first[ann]["trend"] > 0 and first[cat]["trend"] < 0
    # A second tournament where cat wins: read incrementally by the same object.
    _tournament(lg, versions, [([-3, 0, 3], [])] * 4)
    second = {r["version"]: r for r in ratings.table("kuhn3")}
    assert second[ann]["matches"] == 8
    assert second[cat]["trend"] > 0 and second[ann]["trend"] < 0
    assert second[cat]["trend"] == pytest.approx(second[cat]["rating"] - first[cat]["rating"])
    # The same answer from scratch.
    fresh = {r["version"]: r for r in Ratings(lg).table("kuhn3")}
    assert fresh[cat]["rating"] == pytest.approx(second[cat]["rating"])
    h2h = {r["version"]: r for r in ratings.head_to_head("kuhn3", ann)}
    assert h2h[cat]["matches"] == 8 and (h2h[cat]["wins"], h2h[cat]["losses"]) == (4, 4)
    assert h2h[ben]["wins"] + h2h[ben]["losses"] + h2h[ben]["draws"] == 8


def test_a_placement_in_a_big_pool_takes_whole_sets_of_bots_up_to_the_cap():
    full = schedule(50, 3, 1, 7, duplicate=True, gauntlet=0)
    assert len(full) == 3 * 2 * 49 * 48 // 2  # every seating with the candidate: 7,056
    chosen = sample_sets(full, 60, seed=7)
    assert len(chosen) == 60
    sets: dict = {}
    for p in chosen:
        sets.setdefault(tuple(sorted(p.seats)), []).append(p)
    # Whole sets: each is every seating of its three bots, one duplicate deal.
    for members, seatings in sets.items():
        assert 0 in members and len(seatings) == 6 and len({p.seed for p in seatings}) == 1
    assert chosen == sample_sets(full, 60, seed=7) != sample_sets(full, 60, seed=8)
    assert len(sample_sets(full, 1, seed=7)) == 6  # at least one whole set


def test_no_table_seats_two_bots_of_one_owner():
    """Bots of one owner could pass each other cards through what the machine
    lets seats share (docs/sandbox.md): the league seats them apart."""
    owners = (1, 1, 2, 3, 3, 4)
    apart = schedule(6, 3, 1, 7, duplicate=True, apart=owners)
    together = schedule(6, 3, 1, 7, duplicate=True)
    assert apart and all(len({owners[e] for e in p.seats}) == 3 for p in apart)
    # Every table of three owners is kept, each in all of its seatings.
    assert len(apart) == len([p for p in together if len({owners[e] for e in p.seats}) == 3])
    # Too few owners for a table: no match at all.
    assert schedule(4, 3, 1, 7, apart=(1, 1, 2, 2)) == []
